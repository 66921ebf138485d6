package dev.lancecommit.events.trigger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Where maintenance actions are recorded (besides the log). */
public interface MaintenanceRecorder {

  void record(MaintenanceAction action);

  /** Appends one JSON object per action to {@code file} (created if missing). */
  static MaintenanceRecorder jsonLines(Path file) {
    Path absolute = file.toAbsolutePath();
    return action -> {
      try {
        if (absolute.getParent() != null) {
          Files.createDirectories(absolute.getParent());
        }
        synchronized (MaintenanceRecorder.class) {
          Files.writeString(absolute, action.toJson() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
              StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("could not record maintenance action in " + absolute, e);
      }
    };
  }

  /** Keeps actions in memory; for tests and embedding. */
  final class InMemory implements MaintenanceRecorder {
    private final List<MaintenanceAction> actions = new CopyOnWriteArrayList<>();

    @Override
    public void record(MaintenanceAction action) {
      actions.add(action);
    }

    public List<MaintenanceAction> actions() {
      return List.copyOf(actions);
    }
  }
}
