// Package ent holds the generated Ent client. Schemas live in ent/schema.
package ent

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate --feature sql/upsert ./schema
