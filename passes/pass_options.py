"""A pass's options: the fields of its dataclass, typed, and their text in a pipeline.

The type of a field says how a textual pipeline (``s4tf-opt -p 'name{key=value}'``)
writes it: ``bool`` (``true``/``false``; also ``1``/``0``, ``True``..., as MLIR accepts),
``int``, ``str``, ``Literal["cpu", "vulkan"]`` (one of its choices), ``tuple[int, ...]``
or ``tuple[str, ...]`` (comma-separated: ``0,1``). A field of another type takes text
only when its metadata holds a ``parse`` function (:func:`text_option`); otherwise only
Python sets it.

```python
options = pass_options(CheckAvailability)
options["target"].parse("vulkan")   # "vulkan"; "tpu" raises ValueError("must be one of: cpu, ...")
```
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping

from s4tf.core.errors import S4tfError


class PipelineError(S4tfError, ValueError):
    """A pipeline that names an unknown pass, gives a pass a bad option, or is malformed."""


#: The spellings of a bool option's values that MLIR (LLVM's option parser) accepts.
BOOLS = {"true": True, "True": True, "TRUE": True, "1": True, "false": False, "False": False, "FALSE": False, "0": False}

#: Metadata key of a field's text parser (:func:`text_option`).
PARSE = "s4tf.parse"
#: Metadata key of the syntax ``--help`` shows for such a field.
SYNTAX = "s4tf.syntax"


def text_option(parse: Callable[[str], Any], syntax: str, **field_arguments) -> Any:
    """A dataclass field of a type the pipeline syntax does not know, set from text by
    ``parse`` (its ``ValueError`` is the error message, as it is); ``syntax`` is what
    ``s4tf-opt --help`` shows, e.g. ``POSITION:KEY:TYPE,...``."""
    return dataclasses.field(metadata={PARSE: parse, SYNTAX: syntax}, **field_arguments)


@dataclass(frozen=True)
class PassOption:
    """One option of a pass: its field's name, syntax, default and text parser."""

    name: str
    syntax: str
    default: Any  # dataclasses.MISSING when the option is required
    parse: Callable[[str], Any]
    #: The values a ``Literal`` or ``bool`` option accepts (empty for other types).
    choices: tuple[str, ...] = ()
    #: Whether ``parse``'s errors are whole messages (a :func:`text_option`'s).
    own_messages: bool = False
    #: ``(test, what it accepts)`` for a value Python gives (``None``: any value).
    accepts: tuple[Callable[[Any], bool], str] | None = None

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    def describe(self) -> str:
        """``target=cpu|vulkan (required)``, ``remarks=true|false (default: false)``."""
        if self.required:
            return f"{self.name}={self.syntax} (required)"
        default = self.default
        shown = ("true" if default else "false") if isinstance(default, bool) else (
            ",".join(str(item) for item in default) if isinstance(default, tuple) else str(default))
        return f"{self.name}={self.syntax} (default: {shown or 'none'})"

    def value(self, pass_name: str, text: str) -> Any:
        """``text`` converted to the option's type; a :class:`PipelineError` that says why not."""
        try:
            return self.parse(text)
        except ValueError as error:
            if self.own_messages:
                raise PipelineError(str(error)) from None
            raise PipelineError(f"option {self.name}={text} of pass '{pass_name}' {error}") from None


def check_values(instance) -> None:
    """A :class:`PipelineError` if a field of the pass object ``instance`` holds a value its
    type does not allow (``CheckAvailability(target="tpu")``)."""
    for option in pass_options(type(instance)).values():
        value = getattr(instance, option.name)
        if option.accepts is not None and not option.accepts[0](value):
            raise PipelineError(f"{type(instance).__name__}({option.name}={value!r}): {option.name} must be {option.accepts[1]}")


def pass_options(cls: type) -> dict[str, PassOption]:
    """The options of pass class ``cls`` that text can set, by name, in field order."""
    hints = {field.name: field.type for field in dataclasses.fields(cls)}
    if any(isinstance(kind, str) for kind in hints.values()):  # written under ``from __future__ import annotations``
        try:
            hints = typing.get_type_hints(cls)
        except NameError as error:
            raise TypeError(f"the option types of pass class {cls.__name__} do not resolve in its module: {error}") from None
    options = {}
    for field in dataclasses.fields(cls):
        default = field.default if field.default_factory is dataclasses.MISSING else field.default_factory()
        if PARSE in field.metadata:
            options[field.name] = PassOption(field.name, field.metadata[SYNTAX], default, field.metadata[PARSE], own_messages=True)
            continue
        known = _parser(hints[field.name])
        if known is not None:
            syntax, parse, choices, accepts = known
            options[field.name] = PassOption(field.name, syntax, default, parse, choices, accepts=accepts)
    return options


def converted_options(pass_name: str, options: Mapping[str, PassOption], given: Mapping[str, str]) -> dict[str, Any]:
    """``given`` (option name -> text) as field values, every required option present."""
    values = {}
    for key, text in given.items():
        option = options.get(key)
        if option is None:
            raise PipelineError(f"pass '{pass_name}' has no option '{key}'; its options: {', '.join(options) or 'none'}")
        values[key] = option.value(pass_name, text)
    missing = [key for key, option in options.items() if option.required and key not in given]
    if missing:
        example = " ".join(f"{key}=..." for key in missing)
        raise PipelineError(f"pass '{pass_name}' needs option(s) {', '.join(missing)}: write {pass_name}{{{example}}}")
    return values


def _parser(kind):
    """``(syntax, parse, choices, accepts)`` for a field type text can write, else ``None``."""
    if kind in (bool, int, str):
        syntax, parse, choices = {bool: ("true|false", _bool, ("true", "false")), int: ("INT", _int, ()), str: ("TEXT", str, ())}[kind]
        return syntax, parse, choices, (lambda value: _is(value, kind), "an int" if kind is int else f"a {kind.__name__}")
    if typing.get_origin(kind) is Literal:
        values = {str(choice): choice for choice in typing.get_args(kind)}
        return "|".join(values), lambda text: _choice(text, values), tuple(values), (
            lambda value: value in values.values(), f"one of: {', '.join(values)}")
    if typing.get_origin(kind) is tuple and typing.get_args(kind) in ((int, ...), (str, ...)):
        item = typing.get_args(kind)[0]
        accepts = (lambda value: isinstance(value, tuple) and all(_is(v, item) for v in value), f"a tuple of {item.__name__}s")
        return ("INT,..." if item is int else "TEXT,..."), (_ints if item is int else _strings), (), accepts
    return None


def _is(value, kind: type) -> bool:
    """``isinstance``, but a bool is no int."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _bool(text: str) -> bool:
    if text not in BOOLS:
        raise ValueError("must be one of: true, false")
    return BOOLS[text]


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("must be an integer") from None


def _choice(text: str, choices: dict[str, Any]) -> Any:
    if text not in choices:
        raise ValueError(f"must be one of: {', '.join(choices)}")
    return choices[text]


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(item) for item in text.split(","))
    except ValueError:
        raise ValueError("must be integers separated by commas, as 0,1") from None


def _strings(text: str) -> tuple[str, ...]:
    return tuple(item for item in text.split(",") if item)
