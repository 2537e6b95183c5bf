// Package storage is what the server needs of a storage engine beside
// queries: Engine takes events and says what each source holds. Queries
// read an engine through exec.Storage, which needs exec's operators and so
// lives there. The local store (logstore) and any other engine implement
// both; cmd picks one and api uses it through these two interfaces only.
//
// This package imports event and the standard library.
package storage
