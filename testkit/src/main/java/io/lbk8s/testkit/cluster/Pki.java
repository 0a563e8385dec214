package io.lbk8s.testkit.cluster;

import io.lbk8s.testkit.net.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster's certificates, made with openssl as kubeadm lays them out: one CA for every client and serving
 * certificate, and a key pair that signs ServiceAccount tokens. EC P-256 keys: quick to make, accepted everywhere.
 */
final class Pki {

    private static final Duration OPENSSL_TIMEOUT = Duration.ofSeconds(20);

    /** A certificate and its key, both PEM files. */
    record Credential(Path certificate, Path key) {}

    private final Path directory;

    private Pki(Path directory) {
        this.directory = directory;
    }

    static Pki create(Path directory) throws IOException {
        Files.createDirectories(directory);
        Pki pki = new Pki(directory);
        openssl(
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                pki.ca().key().toString(),
                "-out",
                pki.ca().certificate().toString(),
                "-days",
                "3650",
                "-subj",
                "/CN=lbk8s-test-ca",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign,digitalSignature");
        openssl(
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-out",
                pki.serviceAccountKey().toString());
        openssl(
                "pkey",
                "-in",
                pki.serviceAccountKey().toString(),
                "-pubout",
                "-out",
                pki.serviceAccountPublicKey().toString());
        return pki;
    }

    Credential ca() {
        return new Credential(directory.resolve("ca.crt"), directory.resolve("ca.key"));
    }

    Path serviceAccountKey() {
        return directory.resolve("sa.key");
    }

    Path serviceAccountPublicKey() {
        return directory.resolve("sa.pub");
    }

    /** A client certificate: the API server takes the common name as the user and each organization as a group. */
    Credential client(String name, String commonName, String... organizations) throws IOException {
        StringBuilder subject = new StringBuilder();
        for (String organization : organizations) {
            subject.append("/O=").append(organization);
        }
        subject.append("/CN=").append(commonName);
        return issue(name, subject.toString(), "clientAuth", List.of());
    }

    /** A serving certificate for these IP addresses and DNS names. */
    Credential server(String name, String commonName, List<String> ips, List<String> dnsNames) throws IOException {
        List<String> names = new ArrayList<>();
        ips.forEach(ip -> names.add("IP:" + ip));
        dnsNames.forEach(dns -> names.add("DNS:" + dns));
        return issue(name, "/CN=" + commonName, "serverAuth", names);
    }

    private Credential issue(String name, String subject, String usage, List<String> alternativeNames)
            throws IOException {
        Credential credential = new Credential(directory.resolve(name + ".crt"), directory.resolve(name + ".key"));
        Path request = directory.resolve(name + ".csr");
        Path extensions = directory.resolve(name + ".ext");
        openssl(
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                credential.key().toString(),
                "-out",
                request.toString(),
                "-subj",
                subject);
        Files.writeString(
                extensions,
                "basicConstraints=critical,CA:FALSE\n"
                        + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                        + "extendedKeyUsage=" + usage + "\n"
                        + (alternativeNames.isEmpty()
                                ? ""
                                : "subjectAltName=" + String.join(",", alternativeNames) + "\n"));
        openssl(
                "x509",
                "-req",
                "-in",
                request.toString(),
                "-CA",
                ca().certificate().toString(),
                "-CAkey",
                ca().key().toString(),
                "-set_serial",
                "0x" + Long.toHexString(System.nanoTime()),
                "-days",
                "365",
                "-extfile",
                extensions.toString(),
                "-out",
                credential.certificate().toString());
        Files.delete(request);
        Files.delete(extensions);
        return credential;
    }

    /** A kubeconfig for this user against {@code server}, naming the files (nothing is embedded). */
    Path kubeconfig(String name, String server, Credential user) throws IOException {
        Path file = directory.resolve(name + ".kubeconfig");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: lbk8s-test
                  cluster:
                    server: %s
                    certificate-authority: %s
                users:
                - name: %s
                  user:
                    client-certificate: %s
                    client-key: %s
                contexts:
                - name: lbk8s-test
                  context:
                    cluster: lbk8s-test
                    user: %s
                current-context: lbk8s-test
                """.formatted(server, ca().certificate(), name, user.certificate(), user.key(), name));
        return file;
    }

    /**
     * A fabric8 configuration from one of these kubeconfigs: fabric8 takes a client key for RSA unless told, and
     * these are EC (as the lbk8s CLI finds out for itself, {@code kube.ClientKeys}).
     */
    static io.fabric8.kubernetes.client.Config fabric8Config(Path kubeconfig) throws IOException {
        io.fabric8.kubernetes.client.Config config =
                io.fabric8.kubernetes.client.Config.fromKubeconfig(Files.readString(kubeconfig));
        config.setClientKeyAlgo("EC");
        return config;
    }

    private static void openssl(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Shell.check(OPENSSL_TIMEOUT, command);
    }
}
