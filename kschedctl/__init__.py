"""kschedctl: the Kubernetes scheduler as a command-line tool."""

__version__ = "0.1.0"
