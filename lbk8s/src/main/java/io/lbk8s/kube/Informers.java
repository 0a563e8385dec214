package io.lbk8s.kube;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Event handlers the controller's and the speaker's informers share (the informers themselves: {@link Watches}). */
public final class Informers {
    private Informers() {}

    /** A handler that reacts the same way to an add, an update (with the new object) and a delete. */
    public static <T> ResourceEventHandler<T> onAnyChange(Consumer<T> action) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                action.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                action.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                action.accept(obj);
            }
        };
    }
}
