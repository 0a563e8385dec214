package io.lbk8s.speaker;

import static io.lbk8s.speaker.OneNodeCluster.NS;
import static io.lbk8s.speaker.OneNodeCluster.SPEAKER_POD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A speaker stopping (SIGTERM) marks its Pod not ready, so that the other speakers move its addresses without waiting
 * for the kubelet. It reads its Pod lean (the fields it reads, {@code LeanDecoding}), so what it writes must be the
 * Ready condition alone: the rest of the status the kubelet wrote stays.
 */
class SpeakerShutdownApiTest {

    @Test
    void aStoppingSpeakerMarksItsPodNotReadyAndLeavesTheRestOfItsStatus() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            var pods = cluster.client.pods().inNamespace(NS);
            Pod asTheKubeletWroteIt = pods.withName(SPEAKER_POD).get();
            asTheKubeletWroteIt.getStatus().setPhase("Running");
            asTheKubeletWroteIt.getStatus().setPodIP("198.51.100.10");
            asTheKubeletWroteIt
                    .getStatus()
                    .getConditions()
                    .add(new PodConditionBuilder()
                            .withType("PodScheduled")
                            .withStatus("True")
                            .build());
            asTheKubeletWroteIt
                    .getStatus()
                    .setContainerStatuses(List.of(new ContainerStatusBuilder()
                            .withName("speaker")
                            .withReady(true)
                            .withRestartCount(0)
                            .withImage("x")
                            .withImageID("x")
                            .build()));
            pods.resource(asTheKubeletWroteIt).updateStatus();
            Speaker speaker = cluster.speaker(0);
            speaker.start();
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> speaker.readiness().ready());

            speaker.shutdown();

            Pod after = pods.withName(SPEAKER_POD).get();
            assertThat(after.getStatus().getConditions())
                    .extracting(PodCondition::getType, PodCondition::getStatus, PodCondition::getReason)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple("Ready", "False", "SpeakerStopping"),
                            org.assertj.core.groups.Tuple.tuple("PodScheduled", "True", null));
            assertThat(after.getStatus().getPhase()).isEqualTo("Running");
            assertThat(after.getStatus().getPodIP()).isEqualTo("198.51.100.10");
            assertThat(after.getStatus().getContainerStatuses())
                    .singleElement()
                    .satisfies(c -> assertThat(c.getName()).isEqualTo("speaker"));
            assertThat(after.getSpec().getContainers()).as("the spec").hasSize(1);
            assertThat(after.getMetadata().getLabels())
                    .isEqualTo(asTheKubeletWroteIt.getMetadata().getLabels());
        }
    }
}
