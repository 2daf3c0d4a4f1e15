"""The one error type the query engine lets escape: :class:`QueryError`."""

from __future__ import annotations

from crmtui.errors import CrmtuiError
from crmtui.paths import printable

MALFORMED_QUERY = "MALFORMED_QUERY"
INVALID_FIELD = "INVALID_FIELD"
INVALID_TYPE = "INVALID_TYPE"
INVALID_QUERY_FILTER_OPERATOR = "INVALID_QUERY_FILTER_OPERATOR"
NUMBER_OUTSIDE_VALID_RANGE = "NUMBER_OUTSIDE_VALID_RANGE"

CUSTOM_FIELD_HINT = (
    "If you are attempting to use a custom field, be sure to append the '__c' after the "
    "custom field name. Please reference your WSDL or the describe call for the appropriate "
    "names."
)
CUSTOM_OBJECT_HINT = (
    "If you are attempting to use a custom object, be sure to append the '__c' after the "
    "entity name. Please reference your WSDL or the describe call for the appropriate names."
)
CUSTOM_RELATIONSHIP_HINT = (
    "If you are attempting to use a custom relationship, be sure to append the '__r' after "
    "the custom relationship name. Please reference your WSDL or the describe call for the "
    "appropriate names."
)


class QueryError(CrmtuiError):
    """A query Salesforce would reject, with its Salesforce error code.

    Attributes:
        code: Salesforce error code (``MALFORMED_QUERY``, ``INVALID_FIELD``, ...).
        message: The message crmtui shows: Salesforce's wording, then crmtui's hint if any.
        salesforce_message: Salesforce's wording alone (what the REST API and the upstream
            presets show: Salesforce adds no hints).
        hint: crmtui's advice (``use e.g. CreatedDate = 2020-01-01T00:00:00Z``), or None.
        line: 1-based line of the offending token, when known.
        column: 1-based column of the offending token, when known.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
        hint_sep: str = ": ",
    ) -> None:
        self.code = code
        # Messages quote the query's tokens: a control character (an escape sequence, a
        # bidi override) is shown escaped instead of acting on the terminal.
        base = message if message.isprintable() else printable(message)
        self.salesforce_message = base
        self.hint = hint
        self.message = base + hint_sep + hint if hint else base
        self.line = line
        self.column = column
        text = f"{code}: {self.message}"
        if line is not None and column is not None:
            text += f" at line {line}, column {column}"
        super().__init__(text)

    @property
    def observation(self) -> str:
        """The error as upstream's environment shows it to an agent: ``CODE: message``."""
        return f"{self.code}: {self.message}"

    def salesforce_text(self, query: str) -> str:
        """The multi-line form Salesforce's REST API returns (query line, caret, position).

        Salesforce's wording only: crmtui's hint is left out.
        """
        if self.line is None or self.column is None:
            return f"{self.code}: {self.salesforce_message}"
        lines = query.splitlines() or [""]
        src = lines[self.line - 1] if 0 < self.line <= len(lines) else ""
        caret = " " * (self.column - 1) + "^"
        return (
            f"{self.code}: \n{src}\n{caret}\nERROR at Row:{self.line}:Column:{self.column}\n"
            f"{self.salesforce_message}"
        )
