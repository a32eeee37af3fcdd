"""Every ``python``, ``sh`` and ``console`` block of the README and docs/ runs as written,
page by page (see doc_blocks.py for the rules and the markers), so the docs cannot drift
from the code. Compiled modules are shared with the other tests through the test cache."""

from __future__ import annotations

import shutil

import pytest

from doc_blocks import PAGES, REPOSITORY, blocks, output_matches, problems, run_page
from s4tf.runtime.cache import default_cache_dir
from s4tf.runtime.qemu import runtime_folder


def page_id(page) -> str:
    return str(page.relative_to(REPOSITORY))


def test_every_block_names_its_language_and_every_marker_its_reason():
    found = [problem for page in PAGES for block in blocks(page) for problem in problems(block)]
    assert found == [], "\n".join(found)


def provide_what_blocks_need(page, slow: bool, request) -> None:
    """The aarch64 runtime where ``s4tf-run --install-arm64-runtime`` puts it, copied from
    the one the ``arm64_runner`` fixture keeps (which skips without qemu)."""
    if any(b.runs(slow) and b.markers.get("needs") == "qemu-aarch64" for b in blocks(page)):
        tool = request.getfixturevalue("arm64_runner").tool
        installed = runtime_folder(default_cache_dir()) / "iree-run-module"
        if not installed.exists():
            installed.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(tool, installed)


@pytest.mark.references  # the pages' Python blocks; the first page (the README) compiles with IREE, shell blocks always do
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.runs(slow=False) for b in blocks(p))], ids=page_id)
def test_page_runs(page, tmp_path, request):
    provide_what_blocks_need(page, False, request)
    assert run_page(page, tmp_path, slow=False) > 0


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any("slow" in b.markers for b in blocks(p))], ids=page_id)
def test_page_runs_with_its_slow_blocks(page, tmp_path, request):
    provide_what_blocks_need(page, True, request)
    ran = run_page(page, tmp_path, slow=True)
    assert ran > sum(b.runs(slow=False) for b in blocks(page))


# -- the rules themselves ---------------------------------------------------------------------


def test_blocks_and_markers_are_read_from_the_page(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n<!-- ci: test command -->\n<!-- docs: not run: installs the package -->\n```sh\npip install .\n```\n\n"
        "````python\n```\nnested\n```\n````\n\n```\nno language\n```\n"
        "<!-- docs: slow -->\n```console\n$ true\n```\n"
    )
    found = blocks(page)
    assert [(b.line, b.language, b.markers) for b in found] == [
        (5, "sh", {"not run": "installs the package"}), (9, "python", {}), (15, "", {}), (19, "console", {"slow": ""}),
    ]
    assert found[1].text == "```\nnested\n```\n"
    assert [p.split(": ", 1)[1] for b in found for p in problems(b)] == [
        "the block names no language (python, sh, console, text, mlir, ...)",
        "'docs: slow' needs a reason: <!-- docs: slow: why -->",
    ]


@pytest.mark.parametrize(
    "expected, actual, approximate, matches",
    [
        (["a", "b"], ["a", "b"], False, True),
        (["a", "b"], ["a", "c"], False, False),
        (["a", "...", "z"], ["a", "b", "c", "z"], False, True),
        (["a", "...", "z"], ["a", "z"], False, True),
        (["a", "...", "z"], ["a", "b"], False, False),
        (["loss 0.5 (3.9 s)"], ["loss 0.4 (12.1 s)"], True, True),
        (["loss 0.5 (3.9 s)"], ["loss 0.4 (12.1 s)"], False, False),
        (["loss 0.5 (3.9 s)"], ["accuracy 0.4 (12.1 s)"], True, False),
        (["a"], ["a", "more"], False, False),
    ],
)
def test_console_output_comparison(expected, actual, approximate, matches):
    assert output_matches(expected, actual, approximate) is matches


def test_a_failing_block_names_its_page_and_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nx = 1\n```\n\n```sh\ntest -f missing.txt\n```\n")
    folder = tmp_path / "run"
    with pytest.raises(AssertionError, match=r"page.md:5: exit code 1"):
        run_page(page, folder, slow=False)


def test_console_output_that_differs_is_reported(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ echo one\none\n$ echo two\nthree\n```\n")
    with pytest.raises(AssertionError, match=r"(?s)`echo two` printed\ntwo\n\nbut the page says\nthree"):
        run_page(page, tmp_path / "run", slow=False)
