package io.lbk8s.testkit.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How etcd and kube-apiserver are started, the same for the cluster's control plane ({@link ControlPlane}) and the
 * API server alone ({@link RealApiServer}): TLS with client certificates, the Node and RBAC authorizers,
 * ServiceAccount tokens, NodeRestriction, and Pod Security admission as Talos ships it.
 */
final class ApiServerCommands {

    private ApiServerCommands() {}

    /** Pod Security admission enforcing {@code baseline}, auditing and warning {@code restricted}, kube-system exempt. */
    static Path writeAdmission(Path directory) throws IOException {
        Path admission = directory.resolve("admission.yaml");
        Files.writeString(admission, """
                apiVersion: apiserver.config.k8s.io/v1
                kind: AdmissionConfiguration
                plugins:
                - name: PodSecurity
                  configuration:
                    apiVersion: pod-security.admission.config.k8s.io/v1
                    kind: PodSecurityConfiguration
                    defaults:
                      enforce: baseline
                      enforce-version: latest
                      audit: restricted
                      audit-version: latest
                      warn: restricted
                      warn-version: latest
                    exemptions:
                      usernames: []
                      runtimeClasses: []
                      namespaces: [kube-system]
                """);
        return admission;
    }

    /** etcd on loopback, plain HTTP (as envtest and kubeadm's local etcd reach it), no fsync: a test's data. */
    static List<String> etcd(KubernetesBuild build, Path dataDirectory, int clientPort, int peerPort) {
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        return List.of(
                build.bin("etcd").toString(),
                "--name",
                "control",
                "--data-dir",
                dataDirectory.toString(),
                "--listen-client-urls",
                client,
                "--advertise-client-urls",
                client,
                "--listen-peer-urls",
                peer,
                "--initial-advertise-peer-urls",
                peer,
                "--initial-cluster",
                "control=" + peer,
                "--unsafe-no-fsync",
                "--log-level",
                "warn");
    }

    static List<String> apiServer(
            KubernetesBuild build,
            Pki pki,
            Pki.Credential serving,
            Pki.Credential kubeletClient,
            Path admission,
            String bindAddress,
            int port,
            int etcdPort) {
        return List.of(
                build.bin("kube-apiserver").toString(),
                "--etcd-servers",
                "http://127.0.0.1:" + etcdPort,
                "--bind-address",
                bindAddress,
                "--secure-port",
                Integer.toString(port),
                "--tls-cert-file",
                serving.certificate().toString(),
                "--tls-private-key-file",
                serving.key().toString(),
                "--client-ca-file",
                pki.ca().certificate().toString(),
                "--authorization-mode",
                "Node,RBAC",
                "--enable-admission-plugins",
                "NodeRestriction",
                "--admission-control-config-file",
                admission.toString(),
                "--service-account-issuer",
                "https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file",
                pki.serviceAccountPublicKey().toString(),
                "--service-account-signing-key-file",
                pki.serviceAccountKey().toString(),
                "--service-cluster-ip-range",
                PodNetwork.SERVICE_CIDRS,
                "--kubelet-client-certificate",
                kubeletClient.certificate().toString(),
                "--kubelet-client-key",
                kubeletClient.key().toString(),
                "--allow-privileged=true",
                "--profiling=false",
                "--v=1");
    }
}
