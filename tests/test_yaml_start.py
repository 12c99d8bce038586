"""PyYAML's NON_PRINTABLE compiled from its listed form (kschedctl/yaml_start.py): the same code
points, the same errors, and only once the command line is about to import PyYAML."""

from __future__ import annotations

import re
import subprocess
import sys

from kschedctl import yaml_start


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_listed_form_matches_exactly_the_code_points_pyyaml_refuses() -> None:
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    theirs = re.compile(yaml_start.YAML_NON_PRINTABLE)  # re's own compile of PyYAML's text
    ours = re.compile(yaml_start.NON_PRINTABLE_LISTED)
    found = [m.start() for m in ours.finditer(everything)]
    assert found == [m.start() for m in theirs.finditer(everything)]
    assert len(found) == 2111  # 29 C0 controls, 32 of DEL..U+009F, 2,048 surrogates, U+FFFE, U+FFFF


def test_the_text_is_pyyamls_own() -> None:
    # a process where nothing seeded re's cache: PyYAML compiled the text it holds
    out = _run("import yaml, kschedctl.yaml_start as y; print(yaml.reader.Reader.NON_PRINTABLE.pattern == y.YAML_NON_PRINTABLE)")
    assert out.strip() == "True"


def test_the_command_line_seeds_it_when_pyyaml_is_first_imported() -> None:
    code = (
        "import sys, re, kschedctl.cli, kschedctl.yaml_start as y\n"
        "print(any(f is y._BeforeYAML for f in sys.meta_path), 'yaml' in sys.modules)\n"
        "import yaml\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == y.NON_PRINTABLE_LISTED, any(f is y._BeforeYAML for f in sys.meta_path))\n"
        "try:\n"
        "    yaml.safe_load('kind: Pod\\nname: a\\x07b\\n')\n"
        "except yaml.YAMLError as exc:\n"
        "    print(str(exc).replace(chr(10), ' | '))\n"
    )
    seeded = _run(code).splitlines()
    assert seeded[0] == "True False"  # waiting, PyYAML not loaded by the command line's import
    assert seeded[1] == "True False"  # the listed form in place, the finder gone
    plain = _run(
        "import yaml\ntry:\n    yaml.safe_load('kind: Pod\\nname: a\\x07b\\n')\n"
        "except yaml.YAMLError as exc:\n    print(str(exc).replace(chr(10), ' | '))\n"
    )
    assert "unacceptable character #x0007" in seeded[2]
    assert seeded[2] == plain.strip()  # the same error, word for word


def test_nothing_is_seeded_twice_or_once_pyyaml_is_loaded() -> None:
    import yaml  # noqa: F401 - loaded in the suite's process already, or now

    yaml_start.install()
    assert not any(f is yaml_start._BeforeYAML for f in sys.meta_path)
    yaml_start.seed()
    assert yaml_start.seed() is False  # the entry is there: left as it is
