"""Beside the settings model: since which version each site.toml key exists, and an example.

The settings reference (docs/reference/settings.md) is generated from the model in
`catalogctl.content.settings` (type, default, description) and from this table; the generator
refuses a key of the model that has no entry here, so a new setting states its version and an
example. Keys are dotted paths; `<key>` stands for a key the user chooses (`stores.<key>.name`).
Each example is a piece of site.toml; the docs tests check it against `catalogctl schema site`.

May import: nothing of catalogctl.
"""

from typing import NamedTuple


class Note(NamedTuple):
    since: str  # the catalogctl version the key appeared in
    example: str  # TOML, as it would stand in site.toml


NOTES: dict[str, Note] = {
    "base_url": Note("0.1.0", 'base_url = "https://games.example.com"'),
    "title": Note("0.1.0", 'title = "Example Games"'),
    "description": Note("0.1.0", 'description = "Mobile games by Example Games."'),
    "stores.<key>.name": Note("0.1.0", '[stores.ios]\nname = "App Store"'),
    "stores.<key>.kind": Note("0.1.0", '[stores.huawei]\nname = "AppGallery"\nkind = "other"'),
    "stores.<key>.params": Note(
        "0.1.0",
        '[stores.android]\nname = "Google Play"\n'
        'params = { utm_source = "service_api", utm_campaign = "game_catalog" }',
    ),
    "stores.<key>.hosts": Note(
        "0.1.0",
        '[stores.steam]\nname = "Steam"\nkind = "other"\nhosts = ["store.steampowered.com"]\n\n'
        '[stores.web]\nname = "Play in the browser"\nhosts = ["*.itch.io", "games.example.com"]',
    ),
    "game_url": Note("0.1.0", 'game_url = "{base_url}/games/{id}/"'),
    "platforms": Note("0.1.0", 'platforms = ["iOS", "Android"]'),
    "genres": Note("0.1.0", 'genres = ["Puzzle", "Arcade", "Strategy"]'),
    "api.v1.status": Note("0.1.0", '[api.v1]\nstatus = "supported"'),
    "api.v1.deprecation": Note(
        "0.1.0",
        '[api.v1]\nstatus = "deprecated"\ndeprecation = 2027-03-01\n'
        'migration = "https://games.example.com/api/migrate-v2"',
    ),
    "api.v1.sunset": Note(
        "0.1.0",
        '[api.v1]\nstatus = "deprecated"\ndeprecation = 2027-03-01\nsunset = 2027-06-01\n'
        'migration = "https://games.example.com/api/migrate-v2"',
    ),
    "api.v1.migration": Note(
        "0.1.0",
        '[api.v1]\nstatus = "deprecated"\ndeprecation = 2027-03-01\n'
        'migration = "https://games.example.com/api/migrate-v2"',
    ),
    "content.games": Note("0.1.0", '[content]\ngames = "content/games"'),
    "content.language": Note("0.1.0", '[content]\nlanguage = "fr"'),
    "content.own_keys": Note("0.1.0", '[content]\nown_keys = ["platform"]'),
    "content.body_links": Note("0.1.0", "[content]\nbody_links = true"),
    "content.exclude": Note(
        "0.1.0", '[content]\ngames = "_games"\nexclude = ["privacy*", "*/mechanics/*"]'
    ),
    "content.sections": Note(
        "0.1.0", '[content]\ngames = "content/games"\nsections = true\nexclude = ["privacy*"]'
    ),
    "content.category": Note("0.1.0", '[content]\ngames = "_posts"\ncategory = "game"'),
    "fields": Note(
        "0.1.0",
        '[fields]\nname = "title"\nicon = "params.icon"\ngenres = "taxonomies.genres"\n\n'
        '[fields.stores]\nios = "params.appstore"\n'
        'android = "links[platform=googleplay].url"',
    ),
    "rules": Note("0.1.0", '[rules]\nunknown-key = "warning"\nspec-params = "off"'),
}
