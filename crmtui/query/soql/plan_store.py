"""Compiled SOQL plans kept on disk, so that a process can run a query compiled before.

A one-line ``crmtui query`` spends most of its time starting up; the parser and the compiler
cost more to import than to run (docs/performance.md). So ``crmtui query`` keeps each
plan it compiles in the cache folder, and a later process that asks the same query of an org
with the same schema, for the same day, runs the stored plan without loading the parser, the
compiler or the schema objects.

A plan depends on the org's schema (its stored JSON text), the query text, the date relative
date literals refer to, whether a fenced block is unwrapped, and the engine's code: all of
them make up the key (:func:`plan_key`). The engine's code is stood for by the name, size and
modification time of every file of the query packages and the schema module, so an upgrade or
an edit never runs a stale plan.

A stored plan is plain data: the SQL text, its parameters, the output layout, and each value
converter by name (:data:`~crmtui.query.soql.values.CONVERTERS_BY_NAME`), written with
:mod:`marshal` under a checksum; the record shapers are built again on loading, by the same
code the compiler uses. Nothing read from the file is ever run as code. The file also holds
its whole key, compared on reading. A missing, damaged, foreign or stale file is a miss (the
query is compiled as ever), and a cache folder that cannot be written is no cache: the store
never raises.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any

try:  # CPython's own module: hashlib loads OpenSSL first
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without it
    from hashlib import blake2b

from crmtui import __version__
from crmtui.query.soql.plan import ChildPlan, CompiledQuery, Output
from crmtui.query.soql.shaping import bind
from crmtui.query.soql.values import CONVERTERS_BY_NAME

#: Bumped when the stored layout changes.
FORMAT = 1
MAGIC = b"crmtui-soql-plan\n"
#: Folder of the store, inside the cache folder.
FOLDER = "soql-plans"
#: Plans kept at most; past it the oldest are removed when a new one is written.
MAX_PLANS = 2000

_PACKAGE = Path(__file__).resolve().parents[2]  # crmtui/
#: What a plan's meaning depends on, besides the schema and the query.
_CODE = (_PACKAGE / "query" / "soql", _PACKAGE / "query", _PACKAGE / "data" / "schema.py")
_NAMES = {conv: name for name, conv in CONVERTERS_BY_NAME.items()}


def code_stamp() -> str:
    """A digest of the engine's files (names, sizes, modification times) and versions."""
    parts = [__version__, f"{sys.version_info[0]}.{sys.version_info[1]}", str(FORMAT)]
    for place in _CODE:
        if place.is_dir():
            with os.scandir(place) as entries:
                found = sorted((e.name, e.stat()) for e in entries if e.is_file())
        else:
            found = [(place.name, place.stat())]
        parts += [f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in found]
    return blake2b("\0".join(parts).encode()).hexdigest()


def plan_key(schema_text: str, text: str, today: dt.date, fences: bool = True) -> tuple[str, ...]:
    """The whole key of a plan: engine code, schema, date, fences and the query text."""
    schema = blake2b(schema_text.encode("utf-8", "surrogatepass")).hexdigest()
    return (code_stamp(), schema, today.isoformat(), "fences" if fences else "raw", text)


def _file(folder: Path, key: tuple[str, ...]) -> Path:
    name = blake2b("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()
    return folder / f"{name}.plan"


def load(folder: Path, key: tuple[str, ...]) -> CompiledQuery | None:
    """The plan stored under ``key`` in ``folder``, or None (missing, damaged, stale)."""
    try:
        data = _file(folder, key).read_bytes()
        if not data.startswith(MAGIC):
            return None
        body = data[len(MAGIC) + 4 :]
        if zlib.crc32(body).to_bytes(4, "big") != data[len(MAGIC) : len(MAGIC) + 4]:
            return None
        stored_key, plan = marshal.loads(body)
        if stored_key != key:
            return None
        return decode(plan)
    except Exception:  # noqa: BLE001 - any unreadable file is a miss; the query compiles
        return None


def save(folder: Path, key: tuple[str, ...], plan: CompiledQuery) -> bool:
    """Store ``plan`` under ``key`` (atomically); whether it was stored. Never raises."""
    try:
        data = encode(plan)
        if decode(data) != plan:  # a value marshal would change (a subclass, say): keep none
            return False
        body = marshal.dumps((key, data))
        folder.mkdir(parents=True, exist_ok=True)
        target = _file(folder, key)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(MAGIC + zlib.crc32(body).to_bytes(4, "big") + body)
            os.replace(tmp, target)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        _prune(folder)
        return True
    except Exception:  # noqa: BLE001 - a read-only or full disk: no cache, same result
        return False


def _prune(folder: Path) -> None:
    """Remove the oldest plans past :data:`MAX_PLANS` (a plan is only a saved compile)."""
    plans = list(folder.glob("*.plan"))
    if len(plans) <= MAX_PLANS:
        return
    dated = []
    for path in plans:
        with contextlib.suppress(OSError):
            dated.append((path.stat().st_mtime_ns, path))
    for _, path in sorted(dated)[: len(dated) - MAX_PLANS]:
        with contextlib.suppress(OSError):
            path.unlink()


#: The types a plan's bound parameters may have (what :mod:`marshal` keeps exactly).
PARAM_TYPES = (str, int, float, bool, type(None))


def encode(plan: CompiledQuery) -> tuple[Any, ...]:
    """``plan`` as plain values (see the module docs); the shapers are left out.

    Raises:
        Exception: The plan holds something the store does not keep (it is then not stored).
    """
    _check_params(plan.params)
    return (
        plan.kind,
        plan.object,
        plan.sql,
        plan.params,
        tuple(map(_item, plan.items)),
        plan.columns,
    )


def _item(item: Output | ChildPlan) -> tuple[Any, ...]:
    if isinstance(item, ChildPlan):
        _check_params(item.params)
        outputs = tuple(map(_item, item.outputs))
        return ("child", item.rel_name, item.object, item.sql, item.params, outputs)
    return (
        "output",
        item.key,
        item.rel_names,
        item.rel_types,
        item.rel_id_cols,
        item.col,
        _NAMES[item.conv],  # KeyError for a converter without a name: not stored
        item.identity,
    )


def decode(data: tuple[Any, ...]) -> CompiledQuery:
    """The plan :func:`encode` gave ``data`` for, with its shapers bound as the compiler does.

    Raises:
        Exception: ``data`` is not an encoded plan (any error: the caller treats it as a miss).
    """
    kind, obj, sql, params, items, columns = data
    if kind not in ("records", "aggregate", "count"):
        raise ValueError(f"not a plan kind: {kind!r}")
    _check(str, obj, sql)
    _check(tuple, params, items, columns)
    _check(str, *columns)
    _check_params(params)
    built = tuple(map(_decode_item, items))
    if kind == "count":
        if built:
            raise ValueError("a count plan has no outputs")
        return CompiledQuery(kind, obj, sql, params, built, columns)
    children = tuple(i for i in built if isinstance(i, ChildPlan))
    if kind == "aggregate" and children:
        raise ValueError("an aggregate plan has no child plans")
    shaper = bind(obj if kind == "records" else None, built)
    return CompiledQuery(kind, obj, sql, params, built, columns, shaper, children)


def _decode_item(data: tuple[Any, ...]) -> Output | ChildPlan:
    if data[0] == "child":
        _, rel_name, obj, sql, params, outputs = data
        _check(str, rel_name, obj, sql)
        _check(tuple, params, outputs)
        _check_params(params)
        built = tuple(map(_decode_item, outputs))
        if not all(isinstance(o, Output) for o in built):
            raise ValueError("a child plan holds outputs only")
        return ChildPlan(rel_name, obj, sql, params, built, bind(obj, built))
    tag, key, rel_names, rel_types, rel_id_cols, col, conv, identity = data
    if tag != "output":
        raise ValueError(f"not a plan item: {tag!r}")
    _check(tuple, rel_names, rel_types, rel_id_cols)
    _check(str, key, conv, *rel_names, *rel_types)
    _check(int, col, *rel_id_cols)
    _check(bool, identity)
    return Output(key, rel_names, rel_types, rel_id_cols, col, CONVERTERS_BY_NAME[conv], identity)


def _check_params(params: tuple[Any, ...]) -> None:
    for value in params:
        if type(value) not in PARAM_TYPES:
            raise TypeError(f"a parameter of type {type(value).__name__} is not stored")


def _check(kind: type, *values: Any) -> None:
    for value in values:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
