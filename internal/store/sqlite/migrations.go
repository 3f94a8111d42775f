// Package sqlite holds the SQLite migrations.
package sqlite

import "embed"

// Migrations holds the goose migrations under migrations/.
//
//go:embed migrations/*.sql
var Migrations embed.FS
