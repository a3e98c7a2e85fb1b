"""The validator registry: an explicit object mapping type names to validators."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator

from planexec.errors import UnknownNameError
from planexec.evals.base import Validator

# Modules whose module-level `VALIDATORS` make up the built-in catalogue.
VALIDATOR_MODULES = ("text_checks", "json_checks", "similarity_checks", "judge", "code_check", "run_checks", "scoring")


class ValidatorRegistry:
    """Validators by name; an unknown name raises an error listing the known ones."""

    def __init__(self, validators: Iterator[Validator] | list[Validator] = ()) -> None:
        self._items: dict[str, Validator] = {}
        for v in validators:
            self.register(v)

    def register(self, validator: Validator) -> None:
        if validator.name.startswith("not-"):
            raise ValueError(f"{validator.name!r}: the not- prefix is reserved for negation")
        if validator.name in self._items:
            raise ValueError(f"a validator named {validator.name!r} is already registered")
        self._items[validator.name] = validator

    def get(self, name: str) -> Validator:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(
                f"unknown evaluation type {name!r}; known types: {', '.join(self.names())} "
                "(any of them may take the prefix not-)"
            ) from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[Validator]:
        return iter(sorted(self._items.values(), key=lambda v: v.name))

    def __len__(self) -> int:
        return len(self._items)


def default_validators() -> ValidatorRegistry:
    """A fresh registry holding every built-in validator."""
    registry = ValidatorRegistry()
    for mod in VALIDATOR_MODULES:
        for v in importlib.import_module(f"planexec.evals.{mod}").VALIDATORS:
            registry.register(v)
    return registry


_SHARED: ValidatorRegistry | None = None
_SHARED_LOCK = threading.Lock()


def shared_validators() -> ValidatorRegistry:
    """The built-in registry, built once and reused when no registry is passed."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = default_validators()
        return _SHARED
