// Package core holds RFC 7932 spec constants, Huffman primitives, and
// lookup tables shared between the encoder and the decoder.
package core
