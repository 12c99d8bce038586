"""NodeAffinityArgs: the scheduler-enforced ``addedAffinity`` of the NodeAffinity plugin.

Upstream: pkg/scheduler/apis/config/types_pluginargs.go (NodeAffinityArgs) and
apis/config/validation/validation_pluginargs.go (ValidateNodeAffinityArgs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import node_selector_from_dict, preferred_terms_from_list
from kschedctl.framework.args import PluginArgs, Raw
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import FieldError
from kschedctl.plugins.node_affinity.selector import PREFERRED_FIELD, REQUIRED_FIELD, term_errors

ARGS_KIND = "NodeAffinityArgs"


@dataclass(frozen=True)
class NodeAffinityArgs(PluginArgs):
    """NodeAffinityArgs (types_pluginargs.go): no defaults, addedAffinity stays unset."""

    KIND: ClassVar[str] = ARGS_KIND
    added_affinity: Raw = None  # a v1.NodeAffinity

    def validate(self, features: Features | None) -> list[FieldError]:
        """ValidateNodeAffinityArgs: every addedAffinity term must parse (non-lazy NewNodeSelector)."""
        added = self.added_affinity
        if added is None:
            return []
        if not isinstance(added, dict):
            return [FieldError("addedAffinity", "expected an object")]
        errs: list[FieldError] = []
        base = "addedAffinity"
        try:
            required = node_selector_from_dict(added.get(REQUIRED_FIELD), f"{base}.{REQUIRED_FIELD}")
            preferred = preferred_terms_from_list(added.get(PREFERRED_FIELD), f"{base}.{PREFERRED_FIELD}")
        except ObjectError as exc:
            return [FieldError(base, str(exc))]
        if required is not None:
            for i, term in enumerate(required.terms):
                if not term.is_empty():  # NewNodeSelector skips empty terms
                    errs += [FieldError(*e) for e in term_errors(term, f"{base}.{REQUIRED_FIELD}.nodeSelectorTerms[{i}]")]
        for i, t in enumerate(preferred):
            if t.weight != 0 and not t.preference.is_empty():  # NewPreferredSchedulingTerms skips these
                errs += [FieldError(*e) for e in term_errors(t.preference, f"{base}.{PREFERRED_FIELD}[{i}]")]
        return errs
