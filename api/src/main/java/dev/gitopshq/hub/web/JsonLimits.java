package dev.gitopshq.hub.web;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The hub's JSON is strict and bounded. Parsing stops at {@value #MAX_NESTING} levels of nesting,
 * strings of {@value #MAX_STRING} characters and numbers of {@value #MAX_NUMBER} digits (the body
 * as a whole is already bounded by {@link RequestSizeFilter}). A key given twice is refused rather
 * than the last one silently winning, and a value of the wrong JSON type is refused rather than
 * coerced: {@code {"name": 123}} is not the name "123", {@code "3"} is not the number 3.
 */
@Configuration
public class JsonLimits {
  static final int MAX_NESTING = 64;
  static final int MAX_STRING = 4 * 1024 * 1024;
  static final int MAX_NUMBER = 64;

  @Bean
  Jackson2ObjectMapperBuilderCustomizer strictBoundedJson() {
    return builder ->
        builder.postConfigurer(
            mapper -> {
              mapper
                  .getFactory()
                  .setStreamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_NESTING)
                          .maxStringLength(MAX_STRING)
                          .maxNumberLength(MAX_NUMBER)
                          .build());
              mapper.getFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
              mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
              for (CoercionInputShape shape :
                  new CoercionInputShape[] {
                    CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean
                  }) {
                mapper
                    .coercionConfigFor(LogicalType.Textual)
                    .setCoercion(shape, CoercionAction.Fail);
              }
            });
  }
}
