package io.lbk8s.testkit;
final class Placeholder {}
