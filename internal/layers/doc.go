// Package layers holds the test that keeps kgstudio's imports pointing one
// way (see layers_test.go): the front ends reach the product through app,
// and the domain imports nothing else of ours.
package layers
