package io.lbk8s.cli;

public final class Main {
    public static void main(String[] args) {
        System.out.println("lbk8s");
    }
}
