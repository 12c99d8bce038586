"""Coscheduling from kubernetes-sigs/scheduler-plugins (pkg/coscheduling) for kschedctl."""

from .coscheduling import NAME, Coscheduling, CoschedulingArgs, plugin_spec

__all__ = ["NAME", "Coscheduling", "CoschedulingArgs", "plugin_spec"]
