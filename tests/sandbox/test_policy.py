"""The static policy: what it lets through, what it names, and that it never crashes."""

from __future__ import annotations

import gc
import io
import string
import sys
import threading
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.sandbox import policy, wire


def messages(code: str) -> list[str]:
    return [str(v) for v in policy.check(code)]


def test_ordinary_analysis_code_passes():
    code = (
        "import numpy as np\nfrom scipy import ndimage\nimport skimage.filters\n"
        "m = images.mean(axis=0)\nsm = ndimage.gaussian_filter(m, 2)\n"
        "class Roi:\n    def __init__(self, y):\n        self.y = y\n"
        "results = {'mean': float(sm.mean()), 'name': __name__}\n"
    )
    assert policy.check(code) == []


def test_violation_names_the_line():
    found = policy.check("x = 1\ny = 2\nimport os\n")
    assert [v.line for v in found] == [3]
    assert "os" in found[0].message


def test_syntax_error_is_reported_with_line():
    found = policy.check("x = (\n")
    assert policy.is_syntax_error(found) and found[0].line >= 1


def test_unlisted_import_names_the_allowed_ones():
    found = policy.check("import pandas")
    assert "allowed:" in found[0].message and "numpy" in found[0].message


def test_allowed_imports_can_be_narrowed():
    assert policy.check("import scipy", allowed_imports={"numpy"})
    assert not policy.check("import numpy", allowed_imports={"numpy"})


def test_forbidden_module_cannot_be_allowed():
    assert policy.check("import os", allowed_imports={"os", "numpy"})


def test_allow_pickle_is_flagged():
    assert "allow_pickle" in messages("a = np.load('x.npy', allow_pickle=True)")[0]


def test_time_bomb_methods_are_flagged():
    assert messages("class A:\n    def __del__(self):\n        pass")
    assert messages("class A:\n    def __reduce__(self):\n        return (print, ())")


def test_getattr_needs_a_literal_name():
    assert messages("n = 'x'\ngetattr(np, n)")
    assert not messages("getattr(np, 'mean')")


def test_non_string_code_is_a_violation():
    assert policy.check(b"x = 1")  # type: ignore[arg-type]


def test_oversized_code_is_a_violation():
    assert policy.check("x = 1\n" * (policy.MAX_CODE_CHARS // 6 + 1))


def test_deeply_nested_code_does_not_crash():
    assert policy.check("x = " + "(" * 5000 + "1" + ")" * 5000)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.printable, max_size=300))
def test_policy_never_crashes_on_random_text(text):
    result = policy.check(text)
    assert isinstance(result, list)
    assert all(isinstance(v, policy.Violation) for v in result)


FORBIDDEN_NAMES = sorted(policy.FORBIDDEN_CALLS - {"__import__"}) + ["os", "sys", "subprocess"]
TEMPLATES = [
    "{name}()",
    "x = {name}",
    "y = [1, 2]\nz = {name}(y)",
    "def f():\n    return {name}",
    "lambda: {name}",
    "a = np.{attr}",
    "a = images.{attr}.x",
    "import {mod}",
    "from {mod} import thing",
    "import numpy.{mod}",
    "from numpy import {mod}",
    "q = getattr(np, '{attr}')",
]


@settings(max_examples=300, deadline=None)
@given(
    prefix=st.sampled_from(["", "x = 1\n", "import numpy as np\n", "for i in range(3):\n    pass\n"]),
    template=st.sampled_from(TEMPLATES),
    name=st.sampled_from(FORBIDDEN_NAMES),
    attr=st.sampled_from(sorted(policy.FRAME_ATTRIBUTES) + ["__class__", "__globals__",
                                                           "__subclasses__", "_os", "ctypeslib"]),
    mod=st.sampled_from(sorted(policy.FORBIDDEN_MODULES)),
)
def test_forbidden_names_never_get_through(prefix, template, name, attr, mod):
    code = prefix + template.format(name=name, attr=attr, mod=mod)
    found = policy.check(code)
    assert found, code
    expected = prefix.count("\n") + template[: template.index("{")].count("\n") + 1
    assert found[0].line == expected or policy.is_syntax_error(found)


def test_checks_from_parallel_steps_do_not_race():
    """Parallel steps check code and read arrays' headers in threads; CPython's shared AST state made one
    fail in the suite."""
    code = Path(policy.__file__).read_text()
    failures: list[str] = []

    class Cycle:
        def __del__(self) -> None:  # a finaliser that runs during a parse makes threads switch there
            pass

    header = io.BytesIO()
    np.save(header, np.zeros((3, 4), np.float32))

    def check_many() -> None:
        for _ in range(20):
            junk = [Cycle() for _ in range(50)]
            for item in junk:
                item.me = item
            del junk
            try:
                policy.check(code)
                wire.npy_header(io.BytesIO(header.getvalue()))  # numpy parses the header as Python syntax
            except SystemError as exc:
                failures.append(str(exc))

    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(10)
    try:
        threads = [threading.Thread(target=check_many) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)
    assert not failures, failures[:3]
