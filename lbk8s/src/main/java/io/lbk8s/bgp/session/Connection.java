package io.lbk8s.bgp.session;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;

/** An open TCP connection to a BGP peer. */
public interface Connection extends AutoCloseable {
    InputStream input();

    OutputStream output();

    /** This node's end: its address is the next hop of the routes sent on this connection. */
    InetSocketAddress local();

    InetSocketAddress remote();

    @Override
    void close();
}
