/**
 * Configuration, declared once: every key of the coordinator, its features, the consumers, the publishers and the
 * chaos harness is a {@link dev.lancecommit.config.ConfigKey} of a {@link dev.lancecommit.config.ConfigKeys} group
 * (type, default, validator and documentation in one declaration, on Kafka's {@code ConfigDef}). A group parses a
 * map of strings into a {@link dev.lancecommit.config.Config} (unknown keys and invalid values refused with a message
 * naming the key and what it accepts), renders its documentation as a markdown table, and
 * {@link dev.lancecommit.config.ConfigCommandLine} turns it into a picocli command line ({@code --key value} for every
 * key, {@code --config FILE}, {@code --help} printing that table).
 */
package dev.lancecommit.config;
