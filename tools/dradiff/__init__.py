"""dradiff: kschedctl's DynamicResources against the real kube-scheduler 1.35.4 (kschedoracle)."""
