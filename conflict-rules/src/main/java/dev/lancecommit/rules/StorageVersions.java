package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import java.util.Collection;

/** Data storage versions ("0.1", "2.0", "2.1", ...) and how data files' (major, minor) map onto them. */
final class StorageVersions {
  static final String LEGACY = "0.1";

  private StorageVersions() {}

  static String ofFile(DataFile file) {
    int major = file.getFileMajorVersion();
    int minor = file.getFileMinorVersion();
    if (major == 0 && minor <= 2) {
      return LEGACY;
    }
    if ((major == 0 && minor == 3) || (major == 2 && minor == 0)) {
      return "2.0";
    }
    if (major == 2 && minor >= 1 && minor <= 3) {
      return "2." + minor;
    }
    throw new InvalidTransactionException(
        "Data file " + file.getPath() + " has unknown Lance file version " + major + "." + minor);
  }

  /** The canonical spelling of a manifest's data_format.version ("0.3" is an old alias of "2.0"). */
  static String normalize(String version) {
    return switch (version.toLowerCase(java.util.Locale.ROOT)) {
      case "0.1", "legacy" -> LEGACY;
      case "0.3", "2.0", "stable" -> "2.0";
      case "2.1", "next" -> "2.1";
      default -> version;
    };
  }

  /** The one version every data file of the fragments shares; null when there are no data files. */
  static String infer(Collection<DataFragment> fragments) {
    String found = null;
    DataFile first = null;
    for (DataFragment fragment : fragments) {
      for (DataFile file : fragment.getFilesList()) {
        if (first == null) {
          first = file;
          found = ofFile(file);
        } else if (file.getFileMajorVersion() != first.getFileMajorVersion()
            || file.getFileMinorVersion() != first.getFileMinorVersion()) {
          // Runs over every data file on each commit: files are mapped to a version only when their numbers differ.
          String version = ofFile(file);
          if (!found.equals(version)) {
            throw new InvalidTransactionException("All data files must have the same version: " + first.getPath()
                + " is " + found + " but " + file.getPath() + " is " + version);
          }
        }
      }
    }
    return found;
  }

  static int compare(String a, String b) {
    String[] x = normalize(a).split("\\.");
    String[] y = normalize(b).split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i]));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }
}
