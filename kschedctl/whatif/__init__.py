"""What-if answers over the real Scheduler: compare two configurations or releases (diff.py),
count how many copies of a pod fit and how many nodes pending pods need (capacity.py), and the
per-node usage both report (usage.py). Each returns plain result dataclasses; the CLI renders them."""
