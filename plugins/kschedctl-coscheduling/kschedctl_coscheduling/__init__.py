"""Coscheduling from kubernetes-sigs/scheduler-plugins (pkg/coscheduling) for kschedctl."""

from .coscheduling import NAME, Coscheduling, plugin_spec

__all__ = ["NAME", "Coscheduling", "plugin_spec"]
