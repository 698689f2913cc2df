package io.thinvol.testing.real;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * An object its CRD refuses, stored on a real server as it would have been before the CRD
 * tightened: the CRD's schema (and with it its rules) is opened, the object created, and the CRD
 * put back; the object stays as stored, and every later write of it meets the CRD again.
 */
public final class CrdLoosening {

  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private CrdLoosening() {}

  public static <T extends HasMetadata> T createUnvalidated(KubernetesClient admin, T object) {
    Resource<CustomResourceDefinition> crd =
        admin
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(
                HasMetadata.getPlural(object.getClass())
                    + "."
                    + HasMetadata.getGroup(object.getClass()));
    List<CustomResourceDefinitionVersion> strict = crd.get().getSpec().getVersions();
    crd.edit(
        c -> {
          c.getSpec().getVersions().forEach(CrdLoosening::open);
          return c;
        });
    try {
      // The server serves the opened schema once its CRD informer has seen the change.
      return until("the opened schema to take", () -> created(admin, object));
    } finally {
      crd.edit(
          c -> {
            c.getSpec().setVersions(strict);
            return c;
          });
      until("the CRD's schema to be back", () -> refusedAgain(admin, object) ? true : null);
    }
  }

  private static void open(CustomResourceDefinitionVersion version) {
    version
        .getSchema()
        .setOpenAPIV3Schema(
            new JSONSchemaPropsBuilder()
                .withType("object")
                .withXKubernetesPreserveUnknownFields(true)
                .build());
  }

  private static <T extends HasMetadata> T created(KubernetesClient admin, T object) {
    try {
      return admin.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 422) {
        return null; // still the strict schema
      }
      throw e;
    }
  }

  /** A dry run of the same object under another name is refused: the strict schema is back. */
  private static <T extends HasMetadata> boolean refusedAgain(KubernetesClient admin, T object) {
    HasMetadata probe = Serialization.clone(object);
    probe.getMetadata().setName(object.getMetadata().getName() + "-probe");
    probe.getMetadata().setResourceVersion(null);
    try {
      admin.resource(probe).dryRun().create();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 422;
    }
  }

  private static <T> T until(String what, Supplier<T> attempt) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      T done = attempt.get();
      if (done != null) {
        return done;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Pause.of(Duration.ofMillis(50), "waiting for " + what);
    }
  }
}
