"""Salesforce's REST error shape: a JSON list ``[{"errorCode", "message"}]`` and a status.

simple-salesforce turns the status into its exception class (400 ``SalesforceMalformedRequest``,
401 ``SalesforceExpiredSession``, 403 ``SalesforceRefusedRequest``, 404
``SalesforceResourceNotFound``, anything else ``SalesforceGeneralError``) and puts the decoded
list after ``Response content:`` in the exception text, which upstream's connector reads back
with ``ast.literal_eval``. Keeping the body a plain list of two-key objects is what makes that
round trip work.
"""

from __future__ import annotations

from typing import Any

from crmtui.query import QueryError

INVALID_SESSION_ID = "INVALID_SESSION_ID"
NOT_FOUND = "NOT_FOUND"
READ_ONLY = "INSUFFICIENT_ACCESS_OR_READONLY"
INVALID_QUERY_LOCATOR = "INVALID_QUERY_LOCATOR"
UNKNOWN_EXCEPTION = "UNKNOWN_EXCEPTION"
METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"

NOT_FOUND_MESSAGE = "The requested resource does not exist"
SESSION_MESSAGE = "Session expired or invalid"
#: Salesforce's wording when a user lacks the access a request needs (serve-rest is
#: read-only; its own log and the CLI say why).
READ_ONLY_MESSAGE = (
    "You do not have the level of access necessary to perform the operation you requested. "
    "Please contact the owner of the record or your administrator if access is necessary."
)


class ApiError(Exception):
    """An error answer: HTTP status plus Salesforce's error code and message.

    Attributes:
        status: HTTP status code.
        code: Salesforce ``errorCode``.
        message: Salesforce ``message``.
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> list[dict[str, Any]]:
        """The JSON body Salesforce sends: a list with one error object."""
        return [{"errorCode": self.code, "message": self.message}]


def from_query_error(exc: QueryError, text: str) -> ApiError:
    """A rejected query as Salesforce reports it: status 400, the query line and a caret.

    Salesforce's ``message`` for a query error repeats the offending line, a caret under the
    position and ``ERROR at Row:n:Column:m`` before the explanation; without a known position
    the message is the explanation alone.
    """
    full = exc.salesforce_text(text)
    prefix = f"{exc.code}: "
    message = full[len(prefix) :] if full.startswith(prefix) else exc.message
    return ApiError(400, exc.code, message)


def unknown_exception_message(exc: BaseException) -> str:
    """Salesforce's ``UNKNOWN_EXCEPTION`` text for a server fault, with an error id.

    The id (a digest of the exception's type and text) ties a client's report to the
    server's log without showing crmtui's internals to the client.
    """
    import hashlib

    digest = hashlib.sha256(f"{type(exc).__name__}: {exc}".encode()).hexdigest()
    number = int(digest[:12], 16)
    error_id = f"{number % 10**9:09d}-{number // 10**9 % 10**6:06d} ({number % 10**10})"
    return (
        "An unexpected error occurred. Please include this ErrorId if you contact support: "
        + error_id
    )


def not_found(message: str = NOT_FOUND_MESSAGE) -> ApiError:
    """Salesforce's 404 ``NOT_FOUND``."""
    return ApiError(404, NOT_FOUND, message)
