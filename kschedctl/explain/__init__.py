"""Why a pod lands where it does, or nowhere: explain, explain --in-run, the per-node table
and the one-line verdict, over the Scheduler's own calls with a recorder attached.
"""
