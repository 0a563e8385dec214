package io.lbk8s.bench;
final class Placeholder {}
