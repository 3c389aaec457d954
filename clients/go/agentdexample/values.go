package main

import "google.golang.org/protobuf/types/known/structpb"

// structOf turns a Go map into the google.protobuf.Struct that tool arguments travel in.
func structOf(values map[string]interface{}) (*structpb.Struct, error) {
	return structpb.NewStruct(values)
}
