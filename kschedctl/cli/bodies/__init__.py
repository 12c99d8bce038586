"""The commands' work without typer: what a typer command (kschedctl/cli/<command>.py) and the
command line's fast path (kschedctl/cli/fast.py) both call, with the options as plain values
(an output format as its string). Nothing here imports typer or click."""
