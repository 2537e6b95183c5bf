package planner

import "logq/types"

// Catalog is what the planner knows of storage. The executor implements it
// over a log store snapshot.
type Catalog interface {
	// Table returns the schema of a log source. Every name is a source (unknown
	// ones are empty), so there is no "not found".
	Table(name string) TableSchema
}

// TableSchema describes the fields of one source.
type TableSchema interface {
	// Field looks up a dotted field path. object reports a nested object, whose
	// Type is ARRAY<STRUCT<…>>.
	Field(path string) (t types.Type, object bool, ok bool)
	// Children lists the field names directly under path ("" for the top
	// level), in first-seen order; it is how SELECT * expands.
	Children(path string) []string
}

// EmptyCatalog knows no fields: every source is empty. Check binds against it.
type EmptyCatalog struct{}

// Table returns a schema with no fields.
func (EmptyCatalog) Table(string) TableSchema { return emptySchema{} }

type emptySchema struct{}

func (emptySchema) Field(path string) (types.Type, bool, bool) {
	switch path {
	case "timestamp":
		return types.Timestamp, false, true
	case "id", "event_message":
		return types.String, false, true
	}
	return types.Type{}, false, false
}

func (emptySchema) Children(path string) []string {
	if path == "" {
		return []string{"timestamp", "id", "event_message"}
	}
	return nil
}
