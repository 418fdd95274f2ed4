module github.com/hybridgo/hybridgo

go 1.26

require github.com/traefik/yaegi v0.16.1 // indirect
