"""`catalogctl init`: a site.toml proposed from a website's own files.

`generators` recognises the site generator and reads its settings (base URL, title, where the
pages live); `pages` finds the folder of game pages and reads the keys they use; `propose`
writes the site.toml text, each guess with a comment saying what it rests on.
"""
