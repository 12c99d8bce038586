"""The application layer: every command's inputs loaded and checked once, the same way for
the command line (kschedctl/cli) and for a sweep's cells (kschedctl/sweep/cell.py).

- release.py: `--kube-version` and `--feature-gates` as a KubeVersion;
- config.py: the plugin registry, and the KubeSchedulerConfiguration read, checked against
  the schemas, decoded, defaulted and validated in one pass (its warnings said, its first error
  raised);
- snapshot.py: the snapshot loaded, with what it lacks said;
- inputs.py: the three together, as `schedule`, `explain`, `diff` and `capacity` take them;
- outputs.py: the output files resolved and checked against the inputs before anything runs;
- errors.py: which exceptions are the user's input (one line, exit 2) rather than a fault.

What is to be said on stderr goes to a ``say`` callable (a line each, as printed, unescaped):
the command line prints it, a sweep cell keeps it. Nothing here renders or exits; the modules
import the loaders inside their functions, so that `kschedctl --help` imports none of them.
"""
