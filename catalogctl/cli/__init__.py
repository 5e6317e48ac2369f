"""The command line: one thin module per command, and the one error edge in `app`.

May import: every other catalogctl package (it is the top layer).
"""
