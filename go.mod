module github.com/hybridgo/hybridgo

go 1.26

require (
	github.com/go-echarts/go-echarts/v2 v2.6.7
	github.com/traefik/yaegi v0.16.1 // indirect
)
