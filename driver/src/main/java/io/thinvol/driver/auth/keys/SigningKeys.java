package io.thinvol.driver.auth.keys;

/** Where the keys the cluster signs ServiceAccount tokens with are looked up, by key id. */
public interface SigningKeys {

  /** What is known about one key id. */
  sealed interface Lookup {
    /** The cluster publishes this key under the id. */
    record Found(PublishedKey key) implements Lookup {}

    /** The cluster's keys were read just now and none has the id: no token it signed names it. */
    record Unknown() implements Lookup {}

    /** The cluster's keys cannot be read, so a token cannot be checked here ({@code reason}). */
    record Unpublished(String reason) implements Lookup {}
  }

  /** None: every lookup is {@link Lookup.Unpublished}, so every token is left to the review. */
  SigningKeys NONE =
      new SigningKeys() {
        @Override
        public Lookup find(String keyId) {
          return new Lookup.Unpublished("no source of the cluster's signing keys");
        }

        @Override
        public int count() {
          return 0;
        }
      };

  Lookup find(String keyId);

  /** How many keys are known now (a metric). */
  int count();
}
