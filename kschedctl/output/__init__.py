"""What the commands print and write: tables, JSON/YAML, the --report page, the state a run
leaves for --write-snapshot. Renderers over the result objects, never a second computation.
"""
