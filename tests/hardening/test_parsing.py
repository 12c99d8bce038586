"""Bounded, strict parsing: what the API server's decoder refuses is refused, nothing can make
reading hang or blow up, and an error's line is found without re-parsing the file in Python.

Ids name the failure classes of the hardening issue (issue 12, "Hangs, time, memory" and the
"internal error" classes of parsing).
"""

from __future__ import annotations

import io
import json
import time

import pytest
import yaml

from kschedctl.api.decoding import MAX_DEPTH, DecodeError, load_json, load_yaml, yaml_documents
from kschedctl.api.errors import InputError
from kschedctl.api.quantity import QuantityError, QuantityOutOfRange, milli_value, parse_quantity
from kschedctl.cluster.loader import load_snapshot

BOMB = (
    '{lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"], '
    + ", ".join(f"l{i}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]" for i in range(1, 9))
    + ", boom: *i}"
)
NODE = """apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {zone: a}
  annotations: {note: x}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""


def _snap(tmp_path, text: str, name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- refusals of the decoder (sigs.k8s.io/yaml strict, go-yaml v2) -------------------------------
@pytest.mark.parametrize(
    "text,message,line",
    [
        ("a: 1\na: 2\n", 'key "a" already set in map', 2),
        ("a: !!set {x}\n", "unsupported YAML tag !!set (only JSON types are accepted)", 1),
        ("a: !!binary aGk=\n", "unsupported YAML tag !!binary (only JSON types are accepted)", 1),
        ("a: !!python/object:os.system x\n", "unsupported YAML tag !!python/object:os.system (only JSON types are accepted)", 1),
        ("a: .nan\n", ".nan is not a JSON number (NaN and infinities are not accepted)", 1),
        ("b: 1\na: -.inf\n", "-.inf is not a JSON number (NaN and infinities are not accepted)", 2),
        ("{~: a}\n", "unsupported map key of type: <nil>, key: '~'", 1),
        ("a: &x [*x]\n", "anchor value contains itself", 1),
        ("a: " + "9" * 5000 + "\n", "integer of 5000 digits is too large", 1),
        ("a: !!float nope\n", "cannot decode !!str `nope` as a !!float", 1),
        ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", f"document nested deeper than {MAX_DEPTH} levels", 1),
    ],
    ids=[
        "duplicate-keys",
        "set-tag",
        "binary-tag",
        "python-tag",
        "nan",
        "inf",
        "null-key",
        "self-anchor",
        "integer-over-4300-digits",
        "bad-float",
        "deep-nesting",
    ],
)
def test_decoder_refusals(text, message, line):
    with pytest.raises(DecodeError) as info:
        load_yaml(text)
    assert (info.value.message, info.value.line) == (message, line)


def test_timestamps_stay_strings_as_in_go_yaml():
    assert load_yaml("t: 2026-01-01T00:00:00Z\n") == {"t": "2026-01-01T00:00:00Z"}


def test_merge_keys_are_honoured_and_bounded():
    assert load_yaml("b: &b {x: 1, z: 2}\nc: {<<: *b, z: 3}\n")["c"] == {"x": 1, "z": 3}


@pytest.mark.parametrize("where", ["annotations", "labels"])
def test_alias_bomb_in_snapshot_fails_fast(tmp_path, where):
    text = NODE.replace(f"  {where}: {{", f"  {where}: {{bomb: {BOMB}, ")
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_snapshot([_snap(tmp_path, text)])
    assert time.perf_counter() - start < 1.0
    assert "document contains excessive aliasing" in str(info.value)


def test_alias_bomb_in_plugin_args_does_not_hang_validate(run_cli, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        f"- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeAffinity\n    args: {BOMB}\n"
    )
    start = time.perf_counter()
    out = run_cli("validate", str(cfg))
    assert time.perf_counter() - start < 2.0
    assert out.exit_code == 1 and "document contains excessive aliasing" in out.stdout


def test_a_few_aliases_are_fine():
    doc = load_yaml("base: &b {cpu: '1'}\nitems: [*b, *b, *b]\n")
    assert doc["items"] == [{"cpu": "1"}] * 3
    doc["items"][0]["cpu"] = "2"
    assert doc["items"][1]["cpu"] == "1"  # expanded: no shared mutable objects


def test_pod_name_given_as_a_set_is_refused(tmp_path):
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!set {a, b}\n"
    with pytest.raises(InputError) as info:
        load_snapshot([_snap(tmp_path, text)])
    assert info.value.line == 4 and "unsupported YAML tag !!set" in str(info.value)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"a": NaN}', "malformed JSON"),
        ('{"a": ' + "[" * 2000 + "]" * 2000 + "}", "malformed JSON"),
        ('{"a": ' + "1" * 5000 + "}", "malformed JSON"),
    ],
)
def test_json_refusals(text, message):
    with pytest.raises(DecodeError) as info:
        load_json(text)
    assert info.value.message.startswith(message)


@pytest.mark.parametrize("fast", [True, False])
def test_json_depth_bound_holds_whatever_the_recursion_limit(monkeypatch, fast):
    """A library may raise the recursion limit; the standard decoder's depth bound must not move."""
    import sys

    import kschedctl.api.json_decoding as json_decoding

    if not fast:
        monkeypatch.setattr(json_decoding, "_orjson_loads", None)
    elif json_decoding._orjson_loads is None:
        pytest.skip("orjson not installed")
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)
    try:
        with pytest.raises(DecodeError, match="malformed JSON"):
            load_json('{"a": ' + "[" * 2000 + "]" * 2000 + "}")
        shallow = load_json('{"a": ' + "[" * 300 + "]" * 300 + "}")["a"]
        for _ in range(299):
            shallow = shallow[0]
        assert shallow == []
        assert sys.getrecursionlimit() == 50_000
    finally:
        sys.setrecursionlimit(previous)


def _unbounded_loads(text: str) -> object:
    """A JSON loader with no depth bound of its own, as orjson was before 3.9."""
    import json
    import sys

    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)
    try:
        return json.loads(text)
    finally:
        sys.setrecursionlimit(previous)


@pytest.mark.parametrize("depth", [600, 2000])
def test_fast_json_path_has_the_same_depth_bound_whatever_its_release(monkeypatch, depth):
    """orjson's own bound is none before 3.9 and 1,024 since; kschedctl's is MAX_DEPTH on every path."""
    import kschedctl.api.json_decoding as json_decoding

    if json_decoding._orjson_dumps is None:

        def refusing_dumps(value: object) -> bytes:
            raise TypeError("Recursion limit reached")  # as orjson.dumps says past 254 levels

        monkeypatch.setattr(json_decoding, "_orjson_dumps", refusing_dumps)
    monkeypatch.setattr(json_decoding, "_orjson_loads", _unbounded_loads)
    with pytest.raises(DecodeError, match="malformed JSON: nested too deeply"):
        load_json('{"a": ' + "[" * depth + "]" * depth + "}")
    document = load_json('{"a": ' + "[" * 400 + "]" * 400 + ', "b": {"c": 1}}')
    assert document["b"] == {"c": 1} and isinstance(document["a"], list)


# --- quantities: bounded as resource.Quantity is (quantity.go) ----------------------------------
@pytest.mark.parametrize(
    "text,milli",
    [
        ("1e4294967296", 1000),  # the exponent is parsed as int64 and truncated to int32: e0
        ("1e-99999999", 1),  # below 1n: rounds up to 1n, whose MilliValue rounds up to 1
        ("0.0000000001", 1),
        ("9999999Ei", (2**63 - 1) * 1000),  # binary SI is capped at 2^63-1
        ("m", 0),
        ("-", 0),
        (".", 0),  # parseQuantityString's quirks: no digits is zero
    ],
)
def test_quantity_bounds_and_quirks(text, milli):
    assert milli_value(text) == milli


@pytest.mark.parametrize("text", ["1e99999999", "1e9999999", "1" + "0" * 45, "1e400"])
def test_huge_quantity_exponent_is_refused_in_microseconds(text):
    start = time.perf_counter()
    with pytest.raises(QuantityOutOfRange):
        parse_quantity(text)
    assert time.perf_counter() - start < 0.05


@pytest.mark.parametrize("text", ["1e", "1ki", " 1", "1.2.3", "1" * 5000])
def test_invalid_quantities(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)


# --- line look-ups without re-parsing the file in Python -----------------------------------------
def _big_list(n: int, bad_last: bool, fmt: str) -> str:
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {"zone": "z"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
        for i in range(n)
    ]
    if bad_last:
        nodes[-1]["status"]["allocatable"]["cpu"] = "lots"
    doc = {"apiVersion": "v1", "kind": "List", "items": nodes}
    return json.dumps(doc, indent=1) if fmt == "json" else yaml.safe_dump(doc, sort_keys=False)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_bad_field_in_big_file_is_located_without_pure_python_parsing(tmp_path, monkeypatch, fmt):
    path = _snap(tmp_path, _big_list(1500, True, fmt), f"big.{fmt}")

    def forbidden(*_a, **_k):
        raise AssertionError("the whole file was composed again in pure Python")

    monkeypatch.setattr(yaml.composer.Composer, "compose_document", forbidden)
    with pytest.raises(InputError) as info:
        load_snapshot([path])
    line = open(path).read().splitlines()[info.value.line - 1]
    assert "lots" in line and "Node n1499: status.allocatable.cpu" in str(info.value)


def test_yaml_documents_record_spans():
    docs = list(yaml_documents("a: 1\n---\nkind: List\nitems:\n- x: 1\n- y: 2\n  z: 3\n"))
    assert [(d.span.start, d.span.end) for d in docs] == [(0, 1), (2, 7)]
    assert [(s.start, s.end) for s in docs[1].item_spans] == [(4, 5), (5, 7)]


# --- paths ---------------------------------------------------------------------------------------
def test_empty_path_argument_does_not_read_the_working_directory(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "node.yaml").write_text(NODE)
    out = run_cli("schedule", "")
    assert out.exit_code == 2 and "empty path" in out.stderr


def test_closed_stdin_is_an_error(monkeypatch):
    stdin = io.StringIO("")
    stdin.close()
    monkeypatch.setattr("sys.stdin", stdin)
    with pytest.raises(InputError) as info:
        load_snapshot(["-"])
    assert "standard input" in str(info.value)


def test_missing_stdin_is_an_error(monkeypatch):
    monkeypatch.setattr("sys.stdin", None)
    with pytest.raises(InputError, match="standard input is closed"):
        load_snapshot(["-"])


# --- YAML 1.1 forms read as kubectl sends them (issue 21, "Input read wrongly") -------------------
# kubectl turns YAML into JSON with sigs.k8s.io/yaml YAMLToJSON over go-yaml v2, whose resolve.go
# (sigs.k8s.io/yaml goyaml.v2/resolve.go) is not PyYAML's YAML 1.1 resolver: base-60 numbers are
# strings, y/n are booleans, 0o17/09/+.5/1e3 are numbers, 2001-12-14 is a time.Time written back as
# RFC 3339. A pod annotation must be a string, so the API server's verdict on it shows how the
# value was read: accepted (a string) or "cannot unmarshal <type> into Go value of type string".
FORM_NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
FORM_POD = """---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
  annotations:
    note: VALUE
spec:
  containers:
  - name: c
    image: x
    resources: {requests: {cpu: CPU}}
"""


def _form_snapshot(tmp_path, value: str, cpu: str = '"1"', where: str = "annotations") -> str:
    pod = FORM_POD.replace("VALUE", value).replace("CPU", cpu)
    if where == "labels":
        pod = pod.replace("annotations:", "labels:")
    return _snap(tmp_path, FORM_NODE + pod)


@pytest.mark.parametrize(
    "value,verdict",
    [
        # resolve.go: "Base 60 floats are a bad idea, were dropped in YAML 1.2, and are purposefully unsupported"
        ("12:30", None),
        ("1:30", None),
        ("190:20:30.15", None),
        ("-1:30", None),
        # resolve.go resolveMapList: y/Y/yes/on and n/N/no/off are booleans (PyYAML has no y/n)
        ("y", "cannot unmarshal bool"),
        ("N", "cannot unmarshal bool"),
        ("yes", "cannot unmarshal bool"),
        ("off", "cannot unmarshal bool"),
        ("ON", "cannot unmarshal bool"),
        # resolve.go: strconv.ParseInt(plain, 0, 64) after removing "_": Go's 0b/0o/0x and leading-0 octal
        ("0o17", "cannot unmarshal number 15 "),
        ("017", "cannot unmarshal number 15 "),
        ("0b101", "cannot unmarshal number 5 "),
        ("0x1F", "cannot unmarshal number 31 "),
        ("1_000", "cannot unmarshal number 1000 "),
        ("-0b11", "cannot unmarshal number -3 "),
        # resolve.go yamlStyleFloat: 09, +.5 and 1e3 are floats (strings for PyYAML); an integral float
        # reaches the API server as JSON "9" (encoding/json writes no fraction under 1e21)
        ("09", "cannot unmarshal number 9 "),
        ("+.5", "cannot unmarshal number 0.5 "),
        ("1e3", "cannot unmarshal number 1000 "),
        ("1.5e3", "cannot unmarshal number 1500 "),
        # ParseFloat out of range is not a float: the text stays a string
        ("1e400", None),
        # resolveMapList .inf/.nan: json.Marshal refuses them (unsupported value)
        (".inf", "is not a JSON number"),
        ("-.Inf", "is not a JSON number"),
        (".NaN", "is not a JSON number"),
        # "=" (YAML 1.1 value key) and "~"-less texts stay strings; "~" and "null" are null (accepted: "")
        ("=", None),
        ("~", None),
        ("Null", None),
        # parseTimestamp: an unquoted date becomes time.Time, written back by YAMLToJSON as RFC 3339
        ("2001-12-14", None),
        ("2001-13-14", None),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_yaml_forms_in_an_annotation_read_as_kubectl_sends_them(tmp_path, run_cli, value, verdict):
    result = run_cli("schedule", _form_snapshot(tmp_path, value))
    if verdict is None:
        assert result.exit_code == 0, result.stderr
        assert "default/p1  Scheduled" in result.stdout
    else:
        assert result.exit_code == 2
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        assert verdict in result.stderr and "s.yaml:13: " in result.stderr
        if "JSON number" not in verdict:  # refused by YAMLToJSON itself, before any object is read
            assert "Pod default/p1" in result.stderr and "metadata.annotations" in result.stderr


def test_sexagesimal_quantity_is_kubes_quantity_error_not_90_cpus(tmp_path, run_cli):
    """`cpu: 1:30` was 90 CPUs (PyYAML's base 60) and accepted; kubectl sends "1:30", an invalid
    quantity (resolve.go: base 60 unsupported; resource.ParseQuantity's error)."""
    result = run_cli("schedule", _form_snapshot(tmp_path, "x", cpu="1:30"))
    assert result.exit_code == 2
    assert "spec.containers[0].resources.requests[cpu]: quantities must match the regular expression" in result.stderr
    assert "'1:30'" in result.stderr and "s.yaml:18: " in result.stderr


def test_octal_quantity_is_a_number_as_in_go_yaml(tmp_path, run_cli):
    """`cpu: 0o17` is 15 CPUs for go-yaml (ParseInt base 0); PyYAML read the string "0o17", an
    invalid quantity. 15 CPUs do not fit a 4-CPU node."""
    result = run_cli("schedule", _form_snapshot(tmp_path, "x", cpu="0o17"))
    assert result.exit_code == 0, result.stderr
    assert "default/p1  Unschedulable" in result.stdout
    assert "Insufficient cpu" in result.stdout


def test_unquoted_date_label_is_refused_as_the_rfc3339_text_kubectl_sends(tmp_path, run_cli):
    """go-yaml v2 parseTimestamp + Time.MarshalJSON: `release: 2024-01-01` reaches the API server as
    "2024-01-01T00:00:00Z", which is not a valid label value."""
    result = run_cli("schedule", _form_snapshot(tmp_path, "2024-01-01", where="labels"))
    assert result.exit_code == 2
    assert "metadata.labels" in result.stderr and '"2024-01-01T00:00:00Z"' in result.stderr


@pytest.mark.parametrize(
    "text,data",
    [
        ("yes: a\n", {"true": "a"}),  # go-yaml bool key, written "true" (convertToJSONableObject)
        ("1: a\n", {"1": "a"}),  # int key, strconv.Itoa
        ("0x10: a\n", {"16": "a"}),
        ("1.5: a\n", {"1.5": "a"}),  # float key, FormatFloat(k, 'g', -1, 32)
        ("1e6: a\n", {"1e+06": "a"}),
        ("0.1: a\n", {"0.1": "a"}),
        ("'1:30': a\n1:31: b\n", {"1:30": "a", "1:31": "b"}),
    ],
    ids=["bool", "int", "hex", "float", "float-exponent", "float32-digits", "base60"],
)
def test_non_string_keys_become_the_strings_sigs_k8s_yaml_writes(text, data):
    assert load_yaml(text) == data


@pytest.mark.parametrize(
    "text,message",
    [
        ("2001-12-14: a\n", "unsupported map key of type: time.Time"),
        ("18446744073709551615: a\n", "unsupported map key of type: uint64"),
        ("a: !!int 1:30\n", "cannot decode !!str `1:30` as a !!int"),
        ("a: 2001-12-14T21:59:43+24:00\n", "timezone hour outside of range [0,23]"),
    ],
    ids=["timestamp-key", "uint64-key", "tagged-base60", "marshal-offset-24h"],
)
def test_what_yamltojson_refuses_is_refused(text, message):
    with pytest.raises(DecodeError) as info:
        load_yaml(text)
    assert message in info.value.message


def test_written_snapshot_quotes_what_kubectl_would_read_as_another_type(tmp_path, run_cli):
    """--write-snapshot writes "y", "0o17", "2001-12-14" and "1:30" quoted: reading it back (here,
    or with kubectl) gives the same strings, not a boolean, 15, a time or 90."""
    values = ["y", "0o17", "2001-12-14", "1:30", "09", "+.5", "1e3", "no"]
    notes = "\n".join(f"    n{i}: '{v}'" for i, v in enumerate(values))
    text = FORM_NODE + FORM_POD.replace("    note: VALUE", notes).replace("CPU", '"1"')
    out = tmp_path / "after.yaml"
    result = run_cli("schedule", _snap(tmp_path, text), "--write-snapshot", str(out))
    assert result.exit_code == 0, result.stderr
    docs = [d for d in yaml_documents(out.read_text())]
    pods = [item for d in docs for item in (d.data.get("items") or [d.data]) if item.get("kind") == "Pod"]
    assert pods[0]["metadata"]["annotations"] == {f"n{i}": v for i, v in enumerate(values)}
    again = run_cli("schedule", str(out))
    assert again.exit_code == 0, again.stderr


# --- timestamps read as metav1.Time reads them (issue 21) ------------------------------------------
# metav1.Time.UnmarshalJSON (apimachinery pkg/apis/meta/v1/time.go) is time.Parse(time.RFC3339, s):
# the offset is honoured (the scheduler receives the UTC instant), and what Go refuses the API
# server refuses ("... cannot be handled as a Pod: parsing time ...").
QUEUE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "1", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default, creationTimestamp: "2024-01-01T08:00:00Z"}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default, creationTimestamp: STAMP}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


@pytest.mark.parametrize(
    "stamp",
    ['"2024-01-01T10:00:00+05:00"', "2024-01-01T10:00:00+05:00", '"2024-01-01T13:30:00+08:00"', '"2024-01-01T07:59:59.999-00:00"'],
    ids=["quoted", "unquoted-go-yaml-timestamp", "half-hour-offset", "fraction-negative-zero"],
)
def test_creation_timestamp_offset_decides_which_pod_goes_first(tmp_path, run_cli, stamp):
    """Pod a was created at 10:00+05:00 = 05:00Z, before pod b (08:00Z): it is queued first and
    takes the only CPU. Read as 10:00Z (the offset dropped), b went first."""
    result = run_cli("schedule", _snap(tmp_path, QUEUE.replace("STAMP", stamp)))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith("default/a  Scheduled") and lines[2].startswith("default/b  Unschedulable"), lines


def test_later_instant_with_offset_still_goes_after(tmp_path, run_cli):
    """2024-01-01T03:00:00-06:00 is 09:00Z, after b's 08:00Z: b goes first (as the text alone
    would wrongly say the opposite)."""
    result = run_cli("schedule", _snap(tmp_path, QUEUE.replace("STAMP", '"2024-01-01T03:00:00-06:00"')))
    lines = result.stdout.splitlines()
    assert lines[1].startswith("default/b  Scheduled") and lines[2].startswith("default/a  Unschedulable"), lines


@pytest.mark.parametrize(
    "where,value,message",
    [
        ("creation", "2024-13-01T10:00:00Z", 'parsing time "2024-13-01T10:00:00Z": month out of range'),
        (
            "creation",
            "10000-01-01T00:00:00Z",
            'parsing time "10000-01-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "0-01-01T00:00:00Z" as "-"',
        ),
        ("creation", "2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
        ("creation", "2024-01-01T24:00:00Z", 'parsing time "2024-01-01T24:00:00Z": hour out of range'),
        ("creation", "2024-01-01T10:60:00Z", 'parsing time "2024-01-01T10:60:00Z": minute out of range'),
        ("creation", "2024-01-01T10:00:60Z", 'parsing time "2024-01-01T10:00:60Z": second out of range'),
        ("creation", "2024-01-01t10:00:00Z", 'cannot parse "t10:00:00Z" as "T"'),
        ("creation", "2024-01-01T10:00:00z", 'cannot parse "z" as "Z07:00"'),
        ("creation", "2024-01-01T10:00:00", 'cannot parse "" as "Z07:00"'),
        ("creation", "2024-01-01T10:00:00+25:00", "time zone offset hour out of range"),
        ("creation", "2024-01-01T10:00:00Z ", 'extra text: " "'),
        ("creation", "yesterday", 'cannot parse "yesterday" as "2006"'),
        ("deletion", "2024-01-01T10:00:00+0500", 'cannot parse "+0500" as "Z07:00"'),
        ("start", "2024-00-10T10:00:00Z", "month out of range"),
        ("condition", "2024-01-32T10:00:00Z", "day out of range"),
    ],
    ids=[
        "month-13",
        "year-10000",
        "feb-29-2023",
        "hour-24",
        "minute-60",
        "second-60",
        "lowercase-t",
        "lowercase-z",
        "no-zone",
        "offset-25h",
        "trailing-space",
        "words",
        "deletion-no-colon",
        "start-month-0",
        "condition-day-32",
    ],
)
def test_invalid_timestamps_are_refused_as_the_api_server_refuses_them(tmp_path, run_cli, where, value, message):
    pod = QUEUE.replace("STAMP", '"2024-01-01T08:00:00Z"')
    field_path = {
        "creation": "metadata.creationTimestamp",
        "deletion": "metadata.deletionTimestamp",
        "start": "status.startTime",
        "condition": "status.conditions[0].lastTransitionTime",
    }[where]
    if where == "creation":
        pod = pod.replace('creationTimestamp: "2024-01-01T08:00:00Z"}', f'creationTimestamp: "{value}"}}', 1)
        line = 9
    elif where == "deletion":
        pod = pod.replace('2024-01-01T08:00:00Z"}', f'2024-01-01T08:00:00Z", deletionTimestamp: "{value}"}}', 1)
        line = 9
    else:
        status = (
            f'status: {{startTime: "{value}"}}\n'
            if where == "start"
            else f'status:\n  conditions:\n  - {{type: Ready, status: "True", lastTransitionTime: "{value}"}}\n'
        )
        pod = pod.replace(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a", status + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a", 1
        )
        line = 12 if where == "start" else 14
    result = run_cli("schedule", _snap(tmp_path, pod))
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert f"s.yaml:{line}: Pod default/b: {field_path}: " in result.stderr, result.stderr
    assert message in result.stderr


@pytest.mark.parametrize(
    "value",
    [
        "2024-01-01T10:00:00.5Z",
        "2024-01-01T10:00:00,5Z",
        "2024-01-01T1:00:00Z",
        "2024-02-29T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59+24:00",
        "2024-01-01T10:00:00.123456789123-00:00",
    ],
    ids=["fraction", "comma-fraction", "one-digit-hour", "leap-day", "year-0", "offset-24h", "long-fraction"],
)
def test_what_go_time_parse_accepts_is_accepted(tmp_path, run_cli, value):
    """time.Parse falls back to its general parser when the RFC 3339 fast path refuses: a comma
    before the fraction, a one-digit hour and offsets up to 24:60 pass there."""
    result = run_cli("schedule", _snap(tmp_path, QUEUE.replace("STAMP", f'"{value}"')))
    assert result.exit_code == 0, result.stderr


def test_other_kinds_timestamps_are_checked(tmp_path, run_cli):
    """Node conditions' lastHeartbeatTime, a PDB's disruptedPods (map[string]metav1.Time) and
    managedFields[].time are metav1.Time too."""
    node_bad = FORM_NODE.replace(
        "status:\n", 'status:\n  conditions:\n  - {type: Ready, status: "True", lastHeartbeatTime: "2024-01-01T10:00:00+5:00"}\n'
    )
    result = run_cli("schedule", _snap(tmp_path, node_bad))
    assert result.exit_code == 2 and "Node n1: status.conditions[0].lastHeartbeatTime: parsing time" in result.stderr
    pdb = FORM_NODE + (
        "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p, namespace: default}\n"
        'spec: {minAvailable: 1, selector: {}}\nstatus:\n  disruptedPods: {web: "2024-04-31T00:00:00Z"}\n'
    )
    result = run_cli("schedule", _snap(tmp_path, pdb, "pdb.yaml"))
    assert result.exit_code == 2
    assert "PodDisruptionBudget default/p: status.disruptedPods.web: parsing time" in result.stderr
    assert "day out of range" in result.stderr
    managed = FORM_NODE.replace(
        "metadata: {name: n1}", 'metadata:\n  name: n1\n  managedFields:\n  - {manager: kubectl, time: "2024-01-01"}'
    )
    result = run_cli("schedule", _snap(tmp_path, managed, "m.yaml"))
    assert result.exit_code == 2 and "metadata.managedFields[0].time: parsing time" in result.stderr


# --- Lists inside Lists, and *List kinds (issue 21) --------------------------------------------------
# kubectl's FlattenListVisitor (cli-runtime pkg/resource/visitor.go) flattens Lists found among a
# List's items, breadth first; unstructuredJSONScheme.decodeToList gives the items of a typed list
# (PodList, NodeList) that name neither kind nor apiVersion the list's item kind and apiVersion.
NESTED = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: inner, namespace: default}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
  - apiVersion: v1
    kind: PodList
    items:
    - metadata: {name: deepest, namespace: default}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
- apiVersion: v1
  kind: NodeList
  items:
  - metadata: {name: n1}
    status:
      allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: outer, namespace: default}
  spec:
    containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_nested_lists_are_flattened_as_kubectl_flattens_them(tmp_path, run_cli, fmt):
    """The pods of a List inside a List were dropped with "skipping objects of kind 'List' (not
    used for scheduling)"; now every pod and node is read, PodList/NodeList items included."""
    text = NESTED if fmt == "yaml" else json.dumps(yaml.safe_load(NESTED), indent=2)
    result = run_cli("schedule", _snap(tmp_path, text, f"s.{fmt}"), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert "skipping" not in result.stderr
    placed = {p["pod"]: p["node"] for p in json.loads(result.stdout)["placements"]}
    assert placed == {"default/inner": "n1", "default/deepest": "n1", "default/outer": "n1"}


def test_flattened_order_is_breadth_first(tmp_path):
    """FlattenListVisitor appends a nested List's items after the items of the List holding it:
    outer (depth 1) comes before inner (depth 2), before deepest (depth 3)."""
    snap = load_snapshot([_snap(tmp_path, NESTED)])
    assert [p.name for p in snap.pods] == ["outer", "inner", "deepest"]
    assert [n.name for n in snap.nodes] == ["n1"]


def test_error_in_a_nested_item_names_its_path_and_line(tmp_path, run_cli):
    text = NESTED.replace(
        "    - metadata: {name: deepest, namespace: default}", "    - apiVersion: v1\n      metadata: {name: deepest, namespace: default}"
    )
    result = run_cli("schedule", _snap(tmp_path, text))
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path / 's.yaml'}:15: items[0].items[1].items[0]: kind: object has no kind\n"


def test_lists_nested_too_deep_are_refused(tmp_path, run_cli):
    doc: dict = {"apiVersion": "v1", "kind": "List", "items": []}
    inner = doc
    for _ in range(20):
        nested = {"apiVersion": "v1", "kind": "List", "items": []}
        inner["items"].append(nested)
        inner = nested
    result = run_cli("schedule", _snap(tmp_path, json.dumps(doc), "deep.json"))
    assert result.exit_code == 2
    assert "Lists nested more than 16 levels deep" in result.stderr and result.stderr.count("\n") == 1


def test_a_huge_refused_timestamp_gives_a_short_error_line(tmp_path, run_cli):
    """Go prints the whole text; an error line here stays short (the text is cut, its length said)."""
    text = QUEUE.replace('"2024-01-01T08:00:00Z"', '"2024-01-01T08:00:00Z' + "z" * 200_000 + '"')
    result = run_cli("schedule", _snap(tmp_path, text.replace("STAMP", '"2024-01-01T08:00:00Z"')))
    assert result.exit_code == 2 and len(result.stderr) < 1000, len(result.stderr)
    assert "metadata.creationTimestamp: parsing time" in result.stderr and "(200020 characters)" in result.stderr


def test_json_snapshots_keep_their_strings(tmp_path, run_cli):
    """JSON has its own types: "y", "1:30", "0o17" and "2001-12-14" in a JSON file stay those texts."""
    doc = yaml.safe_load(FORM_NODE)
    pod = list(yaml_documents(FORM_POD.replace("VALUE", "x").replace("CPU", '"1"')))[0].data
    pod["metadata"]["annotations"] = {"a": "y", "b": "1:30", "c": "0o17", "d": "2001-12-14"}
    pod["metadata"]["labels"] = {"release": "2024-01-01"}
    path = _snap(tmp_path, json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc, pod]}), "s.json")
    result = run_cli("schedule", path, "--write-snapshot", str(tmp_path / "out.yaml"))
    assert result.exit_code == 0, result.stderr
    written = [i for i in yaml_documents((tmp_path / "out.yaml").read_text())][0].data["items"]
    assert written[1]["metadata"]["annotations"] == {"a": "y", "b": "1:30", "c": "0o17", "d": "2001-12-14"}
