/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.io.File
import java.nio.file.{Files, StandardCopyOption}
import java.util.Locale

import org.apache.spark.internal.Logging

/**
 * Finds and loads `libeagle_jni` once per JVM.
 *
 * The jar bundles one library per platform under `/native/<os>-<arch>/` (for example
 * `/native/linux-x86_64/libeagle_jni.so`); it is copied to a temporary file (the JVM cannot
 * load from inside a jar) and loaded with `System.load`. `spark.scheduler.eagle.native.path`
 * names a library file to load instead.
 */
private[eagle] object NativeLibrary extends Logging {
  @volatile private var loadedFrom: Option[String] = None

  /** `<os>-<arch>` as used in the jar, e.g. `linux-x86_64`, `darwin-aarch64`. */
  def platform: String = {
    val os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT) match {
      case n if n.startsWith("linux") => "linux"
      case n if n.startsWith("mac") || n.startsWith("darwin") => "darwin"
      case n if n.startsWith("windows") => "windows"
      case n => n.replaceAll("[^a-z0-9]", "")
    }
    val arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT) match {
      case "amd64" | "x86_64" => "x86_64"
      case "aarch64" | "arm64" => "aarch64"
      case a => a
    }
    s"$os-$arch"
  }

  def resourcePath: String = s"/native/$platform/${System.mapLibraryName("eagle_jni")}"

  /** Loads the library (once); returns the file it was loaded from. */
  def load(overridePath: Option[String]): String = synchronized {
    loadedFrom match {
      case Some(p) => p
      case None =>
        val path = overridePath match {
          case Some(p) =>
            val f = new File(p)
            if (!f.isFile) {
              throw new EagleNativeException(
                s"${EagleConf.Prefix}native.path=$p: no such file")
            }
            f.getAbsolutePath
          case None => extract()
        }
        System.load(path)
        logInfo(s"Eagle: loaded native library $path")
        loadedFrom = Some(path)
        path
    }
  }

  private def extract(): String = {
    val in = getClass.getResourceAsStream(resourcePath)
    if (in == null) {
      throw new EagleNativeException(
        s"the eagle-spark jar has no native library for this platform ($platform): " +
          s"$resourcePath is missing. Build one with `cargo build --release -p eagle-jni` and " +
          s"point ${EagleConf.Prefix}native.path at it.")
    }
    try {
      val name = System.mapLibraryName("eagle_jni")
      val dot = name.lastIndexOf('.')
      val tmp = Files.createTempFile(name.substring(0, dot) + "-", name.substring(dot))
      tmp.toFile.deleteOnExit()
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING)
      tmp.toString
    } finally {
      in.close()
    }
  }
}
