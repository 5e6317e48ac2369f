"""What each rule of the registry checks, why, and how to fix what it finds, keyed by rule id.

The rules reference (docs/reference/rules.md, `python -m catalogctl.output.reference`) and
`catalogctl validate --explain RULE` are both rendered from this table and from the examples in
`catalogctl.content.rules.examples`; a test fails when a rule of the registry has no entry here.
Markdown, as the page shows it; `--explain` prints the same text.

Why one module: it is one table, an entry per rule in the registry's order, read as a whole
by the reference's generator and by `--explain`; split, its entries would drift from the
registry's order and a missing one would be harder to see.

May import: nothing of catalogctl.
"""

from typing import NamedTuple


class Explanation(NamedTuple):
    what: str  # what the rule checks, beyond the registry's one-line summary
    why: str  # why it matters to the catalog or its clients
    fix: str  # what the author does about a finding


def _e(what: str, why: str, fix: str) -> Explanation:
    return Explanation(what, why, fix)


EXPLANATIONS: dict[str, Explanation] = {
    # files and the content tree
    "site-missing": _e(
        "The content tree (the folder `validate`, `build` or `serve` is given, `./content` by "
        "default) has no `site.toml`.",
        "`site.toml` holds the base URL, the stores and their attribution parameters: without "
        "it no URL of the catalog can be written.",
        "Name the folder that holds `site.toml`, or write one: `catalogctl init` detects the "
        "site generator and writes it.",
    ),
    "games-folder": _e(
        "The games folder (`[content] games`, `games` by default) does not exist, is not a "
        "folder, or lies outside the content tree; or it is written so that only some systems "
        "find it: with `\\` between its folders (`content\\games`, which only Windows reads "
        "as `content/games`), or in another case than on disk (`content/Games`, which Windows "
        "and macOS find and Linux does not).",
        "Every page is looked for there. A folder outside the tree (`../elsewhere`, an absolute "
        "path) would make the catalog depend on files the tree does not hold; one that only "
        "some systems find passes on a laptop and fails in CI.",
        "Set `[content] games` to a folder inside the content tree, relative to `site.toml` "
        '(`games = "content/games"` at the root of a Hugo site).',
    ),
    "not-a-file": _e(
        "A page's name points at something that is not a regular file: a FIFO, a socket or a "
        "device.",
        "Reading a FIFO waits for a writer forever and a device can be endless: the page is "
        "not read, so that the command always ends.",
        "Replace it with a regular file, or move it out of the games folder.",
    ),
    "broken-symlink": _e(
        "A symlink in the games folder whose target does not exist, or a chain of symlinks "
        "that loops; or a folder reached twice, through a symlink that leads back to a folder "
        "above it or a second symlink to it (its pages are read once).",
        "The page it stands for cannot be read; leaving it out silently would drop a game "
        "from the catalog.",
        "Point the link at an existing file inside the tree, or remove it.",
    ),
    "symlink-outside": _e(
        "A symlink (or `site.toml` itself) whose target lies outside the content tree.",
        "The content tree is a boundary: a link to `/etc/passwd` or another checkout must "
        "never reach the published catalog or the build.",
        "Copy the file into the tree, or link to a file inside it.",
    ),
    "file-name": _e(
        "A file or folder name in the games folder that is not valid UTF-8 (a name written "
        "by an old tool in Latin-1, for example).",
        "An id comes from the file name and ends up in URLs and JSON, which are UTF-8.",
        "Rename the file (`convmv -f latin1 -t utf8` renames a whole tree).",
    ),
    "portable-name": _e(
        "A file or folder name in the games folder that Windows cannot hold: a device's name "
        "(`con.md`, `aux`, `nul.md`, `com1.md`, `lpt1.md`, `conin$.md`, whatever the "
        "extension), one of "
        'the characters `< > : " | ? * \\`, or a name ending in a dot or a space; or two '
        "names of one folder that differ only in case (`Alpha.md`, `alpha.md`), which "
        "Windows and macOS take for one, or only in how their accents are encoded "
        "(`café.md` composed and decomposed), which macOS takes for one. The page is read "
        "all the same.",
        "Git for Windows cannot check such a file out: the editor of the studio who works on "
        "Windows gets an error, or a tree without the page. It is an error although Linux "
        "and macOS keep the name, as `id-case` is; a site edited only there may set it to a "
        "warning.",
        "Rename the file or folder (`git mv`), and give the page a `slug` if its id must stay.",
    ),
    "unreadable-file": _e(
        "A page, a folder or `site.toml` that the operating system refuses to read "
        "(permissions, an I/O error), or a `site.toml` that is not a regular file (a FIFO, a "
        "device).",
        "A page that cannot be read would silently leave its game out.",
        "The message says which: fix the permissions (`chmod a+r`, `chmod a+rx` for a folder), "
        "replace a FIFO or device with a regular file, or fix what the system reports; a page "
        "or a folder may instead be moved out of the tree.",
    ),
    "encoding": _e(
        "A file whose bytes are not UTF-8 (a UTF-8 BOM at the start is accepted); a file "
        "saved as UTF-16 or UTF-32 is named as such.",
        "Every value is published as UTF-8 JSON; guessing another encoding would publish "
        "wrong letters.",
        "Save the file as UTF-8 (`iconv -f latin1 -t utf-8`); the finding names the line and "
        "column of the first byte that is not UTF-8, or the file's encoding.",
    ),
    "parser-crash": _e(
        "The parser process reading one page died (a signal, memory exhausted) or took longer "
        "than 60 seconds.",
        "One hostile page must not stop the check of the others: the page is reported and "
        "the run goes on.",
        "Look at the page named: a huge or deeply nested front matter is the usual cause. "
        "Cut it down, or split it.",
    ),
    # front matter
    "front-matter": _e(
        "A page without front matter, with front matter that is never closed, empty, or not "
        "a mapping of keys to values.",
        "The catalog keys live in the front matter: YAML between `---` lines, TOML between "
        "`+++` lines, or a JSON object at the top of the file.",
        "Start the page with `---`, the keys, and a closing `---` (or `...`); or move a file "
        "that is not a game page out of the games folder, or name it with a leading `_`.",
    ),
    "syntax": _e(
        "YAML, TOML or JSON that its parser refuses; in YAML also a tag catalogctl does not "
        "read (`!!set`, `!!omap`, `!!pairs`, `!!python/…`, a tag of your own) and a value its "
        'tag cannot make (`!!int ""`, `!!bool maybe`, `!!timestamp garbage`, `!!binary` '
        "that is not base64, `!!seq` on a single value).",
        "A page that cannot be parsed cannot be published; the parser's position is kept, "
        "so the finding points at the line to fix.",
        "Fix the line named. Quote values holding `: `, `#` or a leading `[`, `{`, `*` or "
        "`&` in YAML; close every list and table; remove a tag, or give it a value of its "
        "type.",
    ),
    "limit": _e(
        "Input over one of the limits checked before a parser starts: 1 MiB of front matter "
        "or `site.toml`, 64 levels of nesting, 200,000 keys, items and values, 100 digits in "
        "an integer, 1,000,000 pages, 64 levels of folders; and in `site.toml`, before any "
        "of its values is used: 100 characters in a key, 200 in a name (a platform, a genre, "
        "a `[fields]` key path, an own key), 4,096 in any other text, 500 items in a list or "
        "keys in a table. A page's platform or genre longer than a name may be, where "
        "`site.toml` lists them, is one too.",
        "The limits keep every command bounded in time and memory whatever a page holds "
        "(a YAML alias bomb, a number of a million digits, a name of 200,000 letters to "
        "suggest corrections from).",
        "Real game pages and settings stay far below every limit: shorten or flatten the "
        "value named.",
    ),
    "duplicate-key": _e(
        "A key given twice in one mapping (front matter or `site.toml`).",
        "Parsers disagree about which value wins (YAML keeps the last, TOML refuses the "
        "file): the website and the catalog could publish different values.",
        "Keep one of the two; the finding names both lines.",
    ),
    "unknown-key": _e(
        "A front-matter key close to a key the catalog reads (`platfroms`, a Jekyll site's "
        "`platform`): within one edit of a name of up to five letters, two of a longer one. "
        "Other keys of a page are the website's and are left alone.",
        "A misspelt key is a value that silently does nothing: the page is then reported "
        "as lacking the key, or publishes without it.",
        "Correct the key to the one suggested. A key the website uses for itself is listed "
        "in `[content] own_keys` and no longer reported.",
    ),
    "misspelled-key": _e(
        "A front-matter key close to `draft`, `slug`, `date`, `publishDate` or `expiryDate` "
        "(or the keys `[fields]` maps them to): `darft`, `publishdate`.",
        "As written, the key is not set: a draft would be published, a scheduled game shown "
        "today, an expired one kept, a game published under another id.",
        "Correct the key to the one suggested; a key that differs only in case (Hugo's "
        '`publishdate`) can also be mapped: `[fields] publishDate = "publishdate"`.',
    ),
    # values of a game page
    "missing-field": _e(
        "A page without one of the required catalog keys: `name`, `description`, "
        "`platforms`, `genres`, `icon`, `stores` (after `[fields]` has mapped them).",
        "Every game of the catalog carries these fields (the API contract, §2.3); a client "
        "may rely on each.",
        "Add the key. When the site keeps it under another name (`title`), map it in "
        '`[fields]` (`name = "title"`).',
    ),
    "wrong-type": _e(
        "A value of the wrong type: a string where a list is expected, a number for a name, "
        "a list for a `weight`.",
        "The published JSON has fixed types; a client parsing `platforms` as a list must get "
        "a list.",
        "Write the value as the finding says: `platforms: [iOS]`, not `platforms: iOS`.",
    ),
    "empty-value": _e(
        "A required value that is blank (only white space) or an empty list.",
        "An empty `description` or `platforms: []` publishes a game a client cannot show.",
        "Fill the value in, or mark the page `draft: true` until it is ready.",
    ),
    "invalid-id": _e(
        "A game id (the file name, or `slug`) that cannot be one URL path segment: white "
        "space, `/`, `?`, `#`, `%`, control characters, `.` or `..`, or more than 200 "
        "characters.",
        "The id is published and fills `{id}` in `game_url`, the game's page address.",
        'Rename the file or set a `slug` of letters, digits and `-` (`slug: "moon-lander"`).',
    ),
    "id-style": _e(
        "An id that is a valid path segment but not a lowercase slug: `a`-`z` and `0`-`9`, "
        "joined by `-`, `_` or `.` (`moon-lander`, `cat_bank`).",
        "Ids are compared exactly: `Moon-Lander` and `moon-lander` are two games to a client, "
        "and web servers differ in how they treat case.",
        "Rename the file, or set `slug` to the lowercase form.",
    ),
    "invalid-date": _e(
        "A `date`, `publishDate` or `expiryDate` that is not an ISO 8601 date or date-time "
        "(`2026-03-01`, `2026-03-01T09:00:00Z`).",
        "The dates decide when a game is published and how games of equal weight are "
        "ordered; a date that cannot be read would decide nothing.",
        "Write the date as `YYYY-MM-DD`, optionally with a time and an offset. Dates are "
        "compared with their offsets, so `9999-12-31T23:59:59-14:00` is 14 hours after "
        "`9999-12-31T23:59:59Z`.",
    ),
    "vocabulary": _e(
        "A platform or genre outside the `platforms` or `genres` lists of `site.toml` (when "
        "they are set), with the closest allowed value as a suggestion.",
        "Clients filter games on these values: `ios` beside `iOS` splits one platform in two.",
        "Use the value suggested, or add the new value to the list in `site.toml`.",
    ),
    "duplicate-value": _e(
        "A platform or genre listed twice in one page; in `site.toml`, a name given twice in "
        "`platforms` or `genres`, or twice in another case (`iOS` and `ios`).",
        "The published list would carry the value twice; a vocabulary with two spellings of "
        "one name lets pages publish both, and a client that filters by one misses the games "
        "listed under the other.",
        "Remove the repeated value.",
    ),
    "control-character": _e(
        "Published text holding a character that acts instead of showing: a C0 or C1 control "
        "or DEL (ESC, NUL, BEL, U+009B), a bidirectional override (U+202D, U+202E), a "
        "bidirectional embedding or isolate (U+202A, U+202B, U+2066 to U+2068) left open at "
        "the end of the text or a pop (U+202C, U+2069) with none open, a line break in "
        "one-line text (LF, CR, U+2028 and U+2029) or U+FFFE/U+FFFF. An embedding or isolate "
        "closed within the text is not reported: W3C advises isolating text of the other "
        "direction (`\\u2066Moon Lander\\u2069` in an Arabic name). Checked in a page's `name`, "
        "`description`, `platforms` and `genres` (wherever `[fields]` reads them from) and in "
        "`site.toml`'s `title`, `description`, store names, `platforms` and `genres`. A "
        "description may hold line breaks (LF, CRLF) and tabs, as multi-line YAML and TOML "
        "write them. The finding names the first such character by its code point and name, "
        "and counts the others. (A lone surrogate, which a JSON page can write as `\\ud800`, "
        "fails validation: a `wrong-type` error, in the same words.)",
        "The games JSON escapes only the C0 controls (ESC as `\\u001b`, as JSON must) and "
        "holds DEL, the C1 controls, the bidirectional controls and U+2028 as they are; and "
        "a client decodes either and shows the text as it is: ESC starts a command of the "
        "terminal that prints it (clearing the screen, retitling the window), U+009B does "
        "so alone, U+202E shows the text after it backwards (CVE-2021-42574), an isolate "
        "left open reorders what follows the text, U+2028 breaks a line that a client lays "
        "out as one.",
        "Remove the character (or write a newline for U+2028), or close what it leaves open "
        "(U+2069 after an isolate, U+202C after an embedding). A site that needs it as it is "
        'can lower the rule: `control-character = "warning"` in `[rules]`.',
    ),
    "invisible-character": _e(
        "Published text, checked where `control-character` checks it, holding a character "
        "that shows nothing: a zero-width space (U+200B), a word joiner (U+2060), a byte "
        "order mark (U+FEFF), a direction mark (U+200E, U+200F, U+061C), a Hangul filler "
        "(U+115F, U+1160, U+3164, U+FFA0), a tag character (U+E0000 to U+E007F) outside a "
        "flag's tag sequence (U+1F3F4, 1 to 7 tag digits or small letters, U+E007F: the flag "
        "of England), or a zero-width joiner or non-joiner (U+200D, U+200C) at the start of "
        "the text, after ASCII or a space, or before ASCII, a space or the end of the text "
        "after a character that is neither a letter nor a mark. Not reported: a joiner after "
        "a letter or mark that is not ASCII (a Malayalam chillu or Bengali khanda-ta: a "
        "consonant, a virama and U+200D) or between two characters that are not ASCII (in an "
        "emoji sequence, a Persian or Devanagari word), a no-break space, and every space "
        "that shows as one.",
        "The text is not what it reads: `i\\u200bOS` shows as `iOS` and is not it, so a "
        "client filtering by platform, or a reader searching for the game, misses it; tag "
        "characters carry text that people do not see and programs (a language model "
        "reading `llms.txt`) do. Most come from text copied out of a web page or a document.",
        "Remove the character. Direction marks can be meant in right-to-left text: a site "
        'that uses them can set `invisible-character = "off"` in `[rules]`.',
    ),
    "invalid-url": _e(
        "A URL that is not an absolute `https://` URL by RFC 3986 (an icon, a store link, "
        "`base_url`, `game_url` filled in), or an icon site path that is not a clean path.",
        "Every URL is published as it is and opened by apps and browsers: white space, "
        "quotes, a `user@` part or an address like `0x7f.1` are refused before they reach a "
        "client. `http://` is accepted only for a loopback host (a catalog served locally).",
        "Write the full `https://` URL, or an icon as a site path (`/icons/moon.png`) "
        "resolved against `base_url`.",
    ),
    "unknown-store": _e(
        "A store key in a page (or in `[fields.stores]`) that `[stores]` of `site.toml` does "
        "not define.",
        "Each store's published name and attribution parameters come from `site.toml`; a "
        "link under an unknown key would be published without them.",
        "Use a key of `[stores]` (the suggestion names the closest), or define the store in "
        "`site.toml`.",
    ),
    "store-url": _e(
        "A store link that does not fit its store's kind: an Apple link must be on "
        "`apps.apple.com` or `itunes.apple.com` with an `id<digits>` path segment; a Google "
        "Play link on `play.google.com/store/apps/details` with one valid `id=` package. And a "
        "link of a store of kind `other` on the hosts of another store catalogctl knows: a "
        "Steam link under a store named itch.io.",
        "A link of the wrong store would be published under that store's name, with its "
        "attribution parameters, and counted in its reports. Such a link is published "
        "without them.",
        "Paste the store's own link for the app; or set the store's `kind` in `site.toml` "
        'when the key and name mislead (`kind = "other"`). Where pages keep the links of '
        "several stores in one key (`externalUrl`), map that key to each of those stores in "
        "`[fields.stores]`: each link goes to the store whose hosts it is on.",
    ),
    "store-host": _e(
        "A link of a store of kind `other` whose hosts catalogctl knows (its `hosts`, or "
        "those of the store its key or name names: Steam, itch.io, GOG, …) that is on none "
        "of them: a GitHub page under a store named itch.io. And a link of any store to a "
        "page of a known store that is not a game's: the store's front page, a studio's "
        "page (`https://studio.itch.io/`), a developer's page on Steam, the App Store or "
        "Google Play.",
        "The catalog would publish the link under the store's name; a redirect of the "
        "studio's own may be right, a project's source page is not a store, and a studio's "
        "page does not sell the game a client shows.",
        "Link the game's page on the store; or, if the host is the store's, add it to the "
        "store's `hosts` in `site.toml`.",
    ),
    "store-platform": _e(
        "A page that lists `iOS` (or `iPadOS`) without a link to a store of kind `apple`, or "
        "`Android` without a link to a `google-play` store (when site.toml has one); or a "
        "link to such a store while the page lists none of its platforms. Stores are matched "
        "by kind, whatever their keys.",
        "A client showing an Android badge must find the Google Play link; the contract "
        "lets a game lack a store, not a listed platform its store.",
        "Add the missing store link, or drop the platform.",
    ),
    "body-links": _e(
        "With `[content] body_links = true`: a store whose hosts catalogctl does not know "
        "(a store of kind `other` that is not one of the [stores it knows]"
        "(../content/format.md#known-stores) and has no `hosts`), a host two stores share (a "
        "link on it is read as the first store's), or a page whose body is longer than 1 MiB "
        "with a store's link not found in its first MiB.",
        "A store link that sits in a page's text but is not read leaves the game out of that "
        "store in the catalog without an error: nothing else would say so.",
        "Set the store's `hosts` (`hosts = []` when its links are only in front matter); give "
        "the second store of a shared host its links in front matter; move a link nearer the "
        "top of a long page, or into its front matter.",
    ),
    # site.toml
    "base-url": _e(
        "A `base_url` that ends with `/`, or carries a query or a fragment.",
        "Every published URL is `base_url` followed by a path: a trailing slash would give "
        "`//api/v1`.",
        'Write the base URL without the trailing slash: `base_url = "https://games.example.com"`.',
    ),
    "game-url": _e(
        "A `game_url` template without `{id}`.",
        "Each game's `url` is its own page: without `{id}` every game would link to the same "
        "address.",
        'Put `{id}` where the site puts the game\'s slug: `game_url = "{base_url}/games/{id}/"`.',
    ),
    "store-params": _e(
        "An attribution parameter that cannot be published: a blank name, or an App Store "
        "provider token `pt` that is not numeric.",
        "The stores drop a malformed parameter, and with it the attribution of every "
        "download the API brings.",
        "Copy the values from the store's campaign tools (App Store Connect gives the "
        "numeric `pt`).",
    ),
    "store-hosts": _e(
        "An entry of a store's `hosts` that is not a host name (`store.steampowered.com`) or "
        "`*.` and a domain (`*.itch.io`, any host below itch.io): a URL, a path, a port or a "
        "`*` elsewhere than at the start.",
        "`hosts` decides which links of a page body belong to the store (`[content] "
        "body_links`) and which `catalogctl init` maps to it; an entry that is no host "
        "matches no link, so the store's links would be missed without a word.",
        "Write the host alone, as the address bar shows it between `https://` and the next `/`.",
    ),
    "spec-params": _e(
        "A store's attribution parameters that differ from the ones the API contract names "
        "(§2.4) for its kind: `pt`, `ct=service_api_game_catalog`, `mt=8` for an `apple` "
        "store, `utm_source=service_api`, `utm_campaign=game_catalog` for a `google-play` "
        "store, whatever the store's key.",
        "Clients and the studio's reports expect these values; another value counts the API's "
        "downloads under another campaign.",
        "Set the parameters the finding names; a studio with its own campaign names turns "
        "this rule `off`.",
    ),
    "api-lifecycle": _e(
        "`[api.v1]` settings that contradict each other: `deprecated` without a `deprecation` "
        "date, a date while `supported`, a `sunset` without a deprecation, or a sunset less "
        "than 90 days after it; or a date outside the years 1 to 9999 once in UTC, which "
        "the headers cannot carry.",
        "Clients learn of a retirement from the `Deprecation` and `Sunset` headers (the API "
        "contract, §9), which promise at least 90 days' notice.",
        "Set `deprecation` when the status is `deprecated`, and a `sunset` at least 90 days later.",
    ),
    "migration-link": _e(
        "A deprecated version without a `migration` link.",
        'Deprecated responses carry a `Link` header with `rel="deprecation"` pointing to '
        "the migration guide; without it clients learn that they must move, not how.",
        "Publish a migration guide and set `migration` to its https URL.",
    ),
    "field-mapping": _e(
        "A `[fields]` entry whose value is not a front-matter key path (dotted keys, "
        "`params.icon`; a list item picked by a key, `links[platform=ios].url`), a required "
        "key's path that no page has, or a path that runs into a list without `[key=value]` "
        "to pick an item. (An optional key's or a store's path that no page has yet is an "
        "`unused-mapping` warning.)",
        "The mapping is how a site keeps its own key names; a path that reads nothing would "
        "leave a required catalog key empty on every page.",
        'Write the key path as the pages have it: `icon = "params.icon"` for Hugo\'s '
        '`[params]`, `"extra.icon"` for Zola\'s `[extra]`, `"links[platform=googleplay].url"` '
        "for a list of links.",
    ),
    "unknown-setting": _e(
        "A key of site.toml that catalogctl does not know, at any depth: a misspelled table "
        "header (`[store.android]`), a misspelled key (`[content] gmaes`, `[stores.ios] "
        "kidn`), an unknown rule under `[rules]`, a `[fields]` entry for a key that is not "
        "a catalog key. The finding is at the key's own line, with a did-you-mean.",
        "site.toml is catalogctl's own file: a key it does not read is a setting that "
        "silently does nothing.",
        "Correct the key to the one suggested, or remove it.",
    ),
    "unused-mapping": _e(
        "A `[fields]` entry of an optional catalog key (`weight`, `date`, `slug`, …) or of a "
        "store (`[fields.stores]`) that no page has yet. (A required key's entry that no page "
        "has is a `field-mapping` error: every page needs that key.)",
        "A site sets up a mapping before its pages use it (a `steamUrl` key for the games "
        "still to reach Steam), so the build goes on; but a misspelt key reads nothing, and "
        "this warning is the only sign of it.",
        "Check the key's spelling against a page; leave the line for the pages to come, or "
        'turn the rule `off` (`[rules] unused-mapping = "off"`).',
    ),
    "unused-exclude": _e(
        "A pattern of `[content] exclude` that names no page of the games folder: a "
        "misspelled name (`privacy-polcy.md`), a folder pattern without its `/`, or a page "
        "since removed.",
        "A pattern meant to leave a page out that names none leaves it in: the page is "
        "read as a game, and its findings (or its publication) come as a surprise.",
        "Correct the pattern, as `.gitignore` reads one from the games folder "
        "(`privacy*`, `legal/`, `*/notes/*`), or remove it.",
    ),
    "unlinked-store": _e(
        "A store of `[stores]` that no page links: not in front matter and, with `[content] "
        "body_links`, not in any page's body. Checked when every page could be read. (A "
        "store whose `[fields.stores]` entry no page has is told once, by `unused-mapping` at "
        "that entry's line.)",
        "The store appears in no game of the catalog. That is right for a store set up "
        "before the games reach it, and a sign of a misspelt key or host otherwise.",
        "Link the store from the pages that are on it; check its key against the pages' "
        "`stores` (or its `hosts` for body links); or turn the rule `off` while the games are "
        "on their way.",
    ),
    "rule-config": _e(
        "A `[rules]` entry that names a rule which cannot be changed.",
        "Some rules guard what the catalog can publish at all (a page that cannot be parsed, "
        "a URL that is not a URL): turning them off would publish something broken.",
        "Remove the entry; `catalogctl validate --list-rules` shows which rules can be changed.",
    ),
    # the catalog
    "duplicate-id": _e(
        "Two pages that publish the same id (a file name, or a `slug` that repeats another).",
        "The id is the key clients store a game under: two games with one id make one of "
        "them unreachable.",
        "Change the `slug` (or the file name) of one of the two; the finding names both files.",
    ),
    "id-case": _e(
        "Two pages whose ids are equal but for case (`Gull-Patrol` and `gull-patrol`): file "
        "names, folder names of bundles, or a `slug`.",
        "macOS and Windows ignore case in file names: a checkout there holds only one of the two "
        "pages (the other overwrites it), and the website built there writes both pages to one "
        "folder. It is an error although Linux keeps both: the editors of a studio work on "
        "those laptops. A site built and edited only on Linux may set it to a warning.",
        "Give one of the two another `slug`, or rename its file; `id-style` asks for lowercase "
        "ids, which never collide this way.",
    ),
    "empty-catalog": _e(
        "A content tree that publishes no game: every page a draft, expired, not yet "
        "published, in another language, or with errors.",
        "An empty catalog would replace the published one with nothing; most often the games "
        "folder or `[content] language` is wrong.",
        "Check the summary line (pages read, drafts, translations skipped) and `[content] games`.",
    ),
}
