"""Reading a catalog source (content, build, JSON, URL). May import: site and below."""
