"""Dynamic Resource Allocation: CEL device selectors (``cel``) and the structured allocator
(``structured``), as k8s.io/dynamic-resource-allocation implements them."""
