"""kube-scheduler's in-tree plugins, one module per plugin (framework/plugins/<name>/ upstream)."""
