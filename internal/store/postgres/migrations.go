// Package postgres holds the PostgreSQL migrations.
package postgres

import "embed"

// Migrations holds the goose migrations under migrations/.
//
//go:embed migrations/*.sql
var Migrations embed.FS
