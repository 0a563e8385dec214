module lbk8s.test/kubernetes/pause

go 1.24.0
