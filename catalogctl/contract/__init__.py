"""The published contract: model, route table, openapi, docs page. May import: the base only."""
