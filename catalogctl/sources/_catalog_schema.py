"""The pydantic-core schema of a GameCatalog document. Generated: do not edit.

Regenerate with `python -m catalogctl.sources.schema`.
"""

from typing import Any

SCHEMA: Any = {
    "type": "typed-dict",
    "fields": {
        "schemaVersion": {
            "type": "typed-dict-field",
            "schema": {
                "type": "literal",
                "expected": [
                    1,
                ],
            },
            "required": True,
            "metadata": {},
        },
        "games": {
            "type": "typed-dict-field",
            "schema": {
                "type": "list",
                "items_schema": {
                    "type": "typed-dict",
                    "fields": {
                        "id": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "str",
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "name": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "str",
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "description": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "str",
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "url": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "str",
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "platforms": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "list",
                                "items_schema": {
                                    "type": "str",
                                },
                                "min_length": 1,
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "genres": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "list",
                                "items_schema": {
                                    "type": "str",
                                },
                                "min_length": 1,
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "icon": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "str",
                            },
                            "required": True,
                            "metadata": {},
                        },
                        "stores": {
                            "type": "typed-dict-field",
                            "schema": {
                                "type": "list",
                                "items_schema": {
                                    "type": "typed-dict",
                                    "fields": {
                                        "name": {
                                            "type": "typed-dict-field",
                                            "schema": {
                                                "type": "str",
                                            },
                                            "required": True,
                                            "metadata": {},
                                        },
                                        "url": {
                                            "type": "typed-dict-field",
                                            "schema": {
                                                "type": "str",
                                            },
                                            "required": True,
                                            "metadata": {},
                                        },
                                    },
                                    "computed_fields": [],
                                    "extra_behavior": "ignore",
                                    "config": {
                                        "extra_fields_behavior": "ignore",
                                        "title": "Store",
                                    },
                                },
                                "min_length": 1,
                            },
                            "required": True,
                            "metadata": {},
                        },
                    },
                    "computed_fields": [],
                    "extra_behavior": "ignore",
                    "config": {
                        "extra_fields_behavior": "ignore",
                        "title": "Game",
                    },
                },
                "fail_fast": True,
            },
            "required": True,
            "metadata": {},
        },
    },
    "computed_fields": [],
    "extra_behavior": "ignore",
    "config": {
        "extra_fields_behavior": "ignore",
        "title": "GameCatalog",
    },
}
