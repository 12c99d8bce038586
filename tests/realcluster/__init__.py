"""Tests against a real kube-apiserver (a package, so that its conftest is not the `conftest` module tests/live imports)."""
