// Package types is logq's value and type system, shared by every other package.
//
// It owns the SQL types of the BigQuery dialect that logq runs (INT64, FLOAT64,
// BOOL, STRING, BYTES, TIMESTAMP, DATETIME, DATE, INTERVAL, ARRAY, STRUCT and the
// type of a bare NULL), a boxed Value for the few places that need one value at
// a time (constants, parameters, results, nested records), and BigQuery's rules
// for coercion, comparison and the textual forms of times.
//
// Representation choices, each made so the executor can keep plain int64 and
// float64 slices on its hot paths:
//   - TIMESTAMP is microseconds since the Unix epoch, UTC.
//   - DATETIME is a civil date-time stored as the microseconds it would be in UTC.
//   - DATE is days since the epoch.
//   - INTERVAL is a duration in microseconds. logq only needs the units that
//     TIMESTAMP_ADD and TIMESTAMP_SUB accept (MICROSECOND to DAY), all fixed-length
//     in UTC, so months are not represented.
//
// JSON has three encodings here, each defined once: the JSON type's values
// (json.go), TO_JSON and TO_JSON_STRING (json_encode.go), and a value in an
// API response (json_response.go, ResponseEncoder), which the api package
// writes rows with and exec writes nested records straight from storage
// with.
//
// This package imports only the standard library.
package types
