// Package ent holds the generated Ent client. Schemas live in ent/schema.
package ent

//go:generate go tool ent generate --feature sql/upsert ./schema
