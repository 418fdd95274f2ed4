module github.com/hybridgo/hybridgo

go 1.26
