"""Upstream's simulated user, extractor and judge requests, read at run time from its code.

Upstream's harness (SalesforceAIResearch/CRMArena) is CC BY-NC 4.0: crmtui carries none of
its text. Under ``--preset head`` the simulated user (``crm_sandbox/env/users.py``,
``LLMUserSimulationEnv``) and the Evaluator's answer extraction and privacy judge
(``crm_sandbox/env/env.py``, ``Evaluator``) must send upstream's exact messages and request
parameters, so they are built here by *interpreting* upstream's own functions from their
syntax tree (``ast``; nothing of upstream is imported or run): the assignments, f-strings,
``str.format`` calls and ``if``/``elif`` chains that build the messages are evaluated for the
given persona, query, answer or actions, up to the model call, whose keyword arguments other
than the model and the messages are the request parameters (none, at HEAD).

A construct the interpreter does not know stops it with a one-line
:class:`~crmtui.errors.ConfigError` naming the function, so a changed upstream is noticed
rather than misread. The harness folder is found as :mod:`crmtui.agent.upstream_texts` finds
it (``--upstream-dir``, ``CRMTUI_UPSTREAM_DIR``, ``crmtui upstream setup``).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from crmtui.agent.upstream_texts import find_harness
from crmtui.errors import ConfigError

__all__ = ["UpstreamEvaluatorTexts", "UpstreamUserTexts", "evaluator_texts", "user_texts"]

_USERS = Path("crm_sandbox", "env", "users.py")
_ENV = Path("crm_sandbox", "env", "env.py")
#: Keyword arguments of upstream's model calls that are not request parameters.
_NOT_PARAMETERS = frozenset({"model", "custom_llm_provider", "messages"})
_COMPLETION = frozenset({"completion"})


class _Unknown(Exception):
    """A construct the interpreter does not evaluate."""


class _ModelCall(Exception):
    """The interpreted function reached its model call."""

    def __init__(self, messages: Any, parameters: dict[str, Any]) -> None:
        super().__init__("model call")
        self.messages = messages
        self.parameters = parameters


def _name_of(node: ast.expr) -> str | None:
    """``x`` or ``self.x`` as a key of the interpreter's names."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _is_completion(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name in _COMPLETION


def _evaluate(node: ast.expr, names: Mapping[str, Any]) -> Any:  # noqa: C901 - one case each
    """The value of an expression built of literals, names, ``+``, f-strings and str calls."""
    if isinstance(node, ast.Constant):
        return node.value
    key = _name_of(node)
    if key is not None:
        if key in names:
            return names[key]
        raise _Unknown(key)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _evaluate(node.left, names) + _evaluate(node.right, names)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.conversion != -1 or value.format_spec is not None:
                    raise _Unknown("formatted value")
                parts.append(str(_evaluate(value.value, names)))
            else:
                parts.append(str(_evaluate(value, names)))
        return "".join(parts)
    if isinstance(node, ast.List):
        return [_evaluate(item, names) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _evaluate(k, names): _evaluate(v, names)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.IfExp):
        chosen = node.body if _evaluate(node.test, names) else node.orelse
        return _evaluate(chosen, names)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _evaluate(node.left, names), _evaluate(node.comparators[0], names)
        op = node.ops[0]
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
        if isinstance(op, ast.Is):
            return left is right
        if isinstance(op, ast.IsNot):
            return left is not right
        raise _Unknown("comparison")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        if method not in ("format", "strip", "join"):
            raise _Unknown(method)
        target = _evaluate(node.func.value, names)
        args = [_evaluate(a, names) for a in node.args]
        kwargs = {k.arg: _evaluate(k.value, names) for k in node.keywords if k.arg}
        if not isinstance(target, str):
            raise _Unknown(f"{method} on {type(target).__name__}")
        return getattr(target, method)(*args, **kwargs)
    raise _Unknown(type(node).__name__)


def _run(body: Sequence[ast.stmt], names: dict[str, Any], lenient: bool) -> Any:
    """Interpret statements; raises :class:`_ModelCall` at the model call.

    ``lenient`` skips statements it cannot evaluate (a constructor's other fields).
    """
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            if _is_completion(statement.value):
                call = statement.value
                assert isinstance(call, ast.Call)
                keywords = {k.arg: k.value for k in call.keywords if k.arg}
                messages = _evaluate(keywords["messages"], names)
                parameters = {
                    name: ast.literal_eval(value)
                    for name, value in keywords.items()
                    if name not in _NOT_PARAMETERS
                }
                raise _ModelCall(messages, parameters)
            key = _name_of(statement.targets[0])
            try:
                if key is None:
                    raise _Unknown("assignment target")
                names[key] = _evaluate(statement.value, names)
            except _Unknown:
                if not lenient:
                    raise
            continue
        if isinstance(statement, ast.If):
            try:
                chosen = statement.body if _evaluate(statement.test, names) else statement.orelse
            except _Unknown:
                if lenient:
                    continue
                raise
            result = _run(chosen, names, lenient)
            if result is not None:
                return result
            continue
        if isinstance(statement, ast.Return) and statement.value is not None:
            return (_evaluate(statement.value, names),)
        if not lenient:
            raise _Unknown(type(statement).__name__)
    return None


def _method(tree: ast.Module, cls: str, name: str, path: Path) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    raise ConfigError(f"{path} has no {cls}.{name}: not upstream's HEAD harness")


def _call(function: ast.FunctionDef, names: dict[str, Any], where: str) -> _ModelCall:
    """Interpret ``function`` up to its model call."""
    try:
        _run(function.body, names, lenient=False)
    except _ModelCall as reached:
        return reached
    except (_Unknown, KeyError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read {where} of upstream's harness ({exc})") from None
    raise ConfigError(f"{where} of upstream's harness makes no model call")


def _parse(folder: Path, relative: Path) -> ast.Module:
    path = folder / relative
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def _digest(*texts: str) -> str:
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class UpstreamUserTexts:
    """HEAD's ``LLMUserSimulationEnv``: its system prompt, greeting and request parameters."""

    folder: Path
    _prompt: ast.FunctionDef
    _next: ast.FunctionDef
    greeting: str

    def system_prompt(self, persona: str | None, query: str | None) -> str:
        """``build_system_prompt(instruction=query, persona=persona)``, as upstream builds it."""
        names: dict[str, Any] = {"instruction": query, "persona": persona}
        try:
            result = _run(self._prompt.body, names, lenient=False)
        except (_Unknown, TypeError) as exc:
            raise ConfigError(
                f"cannot read the user prompt of upstream's harness ({exc})"
            ) from None
        if not result or not isinstance(result[0], str):
            raise ConfigError("the user prompt of upstream's harness returns no text")
        return str(result[0])

    def opening_messages(self, persona: str | None, query: str | None) -> list[dict[str, str]]:
        """The messages of the user model's first call: its prompt, then the greeting."""
        return [
            {"role": "system", "content": self.system_prompt(persona, query)},
            {"role": "user", "content": self.greeting},
        ]

    @property
    def parameters(self) -> dict[str, Any]:
        """The request parameters of each user model call (``{}`` at HEAD: none)."""
        return dict(_call(self._next, {"messages": []}, "the user's model call").parameters)

    def digest(self) -> str:
        """A short digest of the user's fixed texts (recorded; part of the resume check)."""
        return _digest(self.system_prompt("p", "q"), self.greeting, repr(self.parameters))


def _greeting(reset: ast.FunctionDef, path: Path) -> str:
    for node in ast.walk(reset):
        if isinstance(node, ast.Dict):
            try:
                value = _evaluate(node, {})
            except _Unknown:
                continue
            if value.get("role") == "user" and isinstance(value.get("content"), str):
                return str(value["content"])
    raise ConfigError(f"{path}: LLMUserSimulationEnv.reset has no greeting")


@lru_cache(maxsize=4)
def _user_texts(folder: str) -> UpstreamUserTexts:
    root = Path(folder)
    tree = _parse(root, _USERS)
    path = root / _USERS
    cls = "LLMUserSimulationEnv"
    return UpstreamUserTexts(
        root,
        _method(tree, cls, "build_system_prompt", path),
        _method(tree, cls, "generate_next_message", path),
        _greeting(_method(tree, cls, "reset", path), path),
    )


def user_texts(named: str | Path | None = None) -> UpstreamUserTexts:
    """Upstream HEAD's simulated user, from the harness folder (``named`` or found).

    Raises:
        ConfigError: No HEAD harness, or its user code cannot be read.
    """
    return _user_texts(str(find_harness("head", named, sends="simulated user prompts")))


@dataclass(frozen=True)
class UpstreamEvaluatorTexts:
    """HEAD's ``Evaluator``: the extraction and privacy-judge requests."""

    folder: Path
    _fields: Mapping[str, Any]
    _extract: ast.FunctionDef
    _judge: ast.FunctionDef

    def extraction(self, answer: str, task: str | None) -> tuple[list[dict[str, Any]], dict]:
        """``parse_answers(answer, task)``'s messages and request parameters."""
        names = {**self._fields, "model_output": answer, "task_name": task}
        reached = _call(self._extract, names, "Evaluator.parse_answers")
        return list(reached.messages), dict(reached.parameters)

    def judging(self, actions: Sequence[str]) -> tuple[list[dict[str, Any]], dict]:
        """The privacy judge's messages and request parameters for these action contents."""
        names = {**self._fields, "action_trajectory": list(actions)}
        where = "Evaluator.compute_privacy_confidential_awareness_score"
        reached = _call(self._judge, names, where)
        return list(reached.messages), dict(reached.parameters)

    def digest(self) -> str:
        """A short digest of the evaluator's fixed texts."""
        texts = [str(self.extraction("a", task)) for task in (None, "lead_qualification")]
        return _digest(*texts, str(self.judging(["a"])))


@lru_cache(maxsize=4)
def _evaluator_texts(folder: str) -> UpstreamEvaluatorTexts:
    root = Path(folder)
    tree = _parse(root, _ENV)
    path = root / _ENV
    init = _method(tree, "Evaluator", "__init__", path)
    fields: dict[str, Any] = {}
    try:
        _run(init.body, fields, lenient=True)
    except _ModelCall:
        raise ConfigError(f"{path}: Evaluator.__init__ calls a model") from None
    return UpstreamEvaluatorTexts(
        root,
        {k: v for k, v in fields.items() if k.startswith("self.")},
        _method(tree, "Evaluator", "parse_answers", path),
        _method(tree, "Evaluator", "compute_privacy_confidential_awareness_score", path),
    )


def evaluator_texts(named: str | Path | None = None) -> UpstreamEvaluatorTexts:
    """Upstream HEAD's Evaluator requests, from the harness folder (``named`` or found).

    Raises:
        ConfigError: No HEAD harness, or its evaluator code cannot be read.
    """
    return _evaluator_texts(
        str(find_harness("head", named, sends="answer extractor and judge prompts"))
    )
