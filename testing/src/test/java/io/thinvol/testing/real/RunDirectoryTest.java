package io.thinvol.testing.real;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep of runs left by a JVM that was killed: their processes stopped, their directories
 * removed; never a run of a live JVM, never a process that is not the run's own.
 */
class RunDirectoryTest {

  @TempDir Path parent;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopStarted() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void aRunOfAnEndedJvmIsStoppedAndRemoved() throws Exception {
    RunDirectory run = RunDirectory.create(parent);
    Process child = runsIn(run);
    ownedByAnEndedJvm(run);

    assertThat(RunDirectory.sweepStale(parent)).containsExactly(run.path());

    assertThat(child.onExit().get().isAlive()).isFalse();
    assertThat(run.path()).doesNotExist();
  }

  @Test
  void aRunOfALiveJvmIsLeftAlone() throws Exception {
    RunDirectory run = RunDirectory.create(parent); // owned by this JVM
    Process child = runsIn(run);

    assertThat(RunDirectory.sweepStale(parent)).isEmpty();

    assertThat(child.isAlive()).isTrue();
    assertThat(run.path()).exists();
  }

  @Test
  void aRecordedPidNowOfAnotherProgramIsNotKilled() throws Exception {
    RunDirectory run = RunDirectory.create(parent);
    // The pid is recorded, but the process does not name the run: a pid reused by another program.
    Process stranger = start("sleep", "300");
    run.recordChild("etcd", stranger.toHandle());
    ownedByAnEndedJvm(run);

    assertThat(RunDirectory.sweepStale(parent)).containsExactly(run.path());

    assertThat(stranger.isAlive()).isTrue();
  }

  @Test
  void aJvmWhosePidWasReusedCountsAsEnded() throws Exception {
    RunDirectory run = RunDirectory.create(parent);
    // This JVM's pid with another start time: the owner ended and its pid went to this JVM.
    Files.writeString(
        run.path().resolve(RunDirectory.OWNER),
        "jvm " + ProcessHandle.current().pid() + " " + Instant.EPOCH + "\n");

    assertThat(RunDirectory.sweepStale(parent)).containsExactly(run.path());
  }

  /** The owner record of a process that has ended (recorded while it ran, then killed). */
  private void ownedByAnEndedJvm(RunDirectory run) throws Exception {
    Process ended = new ProcessBuilder("sleep", "300").start();
    String record =
        "jvm " + ended.pid() + " " + ended.toHandle().info().startInstant().orElseThrow() + "\n";
    ended.destroyForcibly().waitFor();
    Files.writeString(run.path().resolve(RunDirectory.OWNER), record);
  }

  /** A process of the run: its command line names a file of the run's directory. */
  private Process runsIn(RunDirectory run) throws Exception {
    Path log = Files.createFile(run.path().resolve("etcd.log"));
    Process child = start("tail", "-f", log.toString());
    run.recordChild("etcd", child.toHandle());
    assertThat(child.isAlive()).isTrue();
    return child;
  }

  private Process start(String... command) throws Exception {
    Process process = new ProcessBuilder(command).start();
    started.add(process);
    return process;
  }
}
